// The lifecycle's calls made with the SDK client, one client per account.
import { AudienceClient, NotFoundError } from "pulumi-audience/sdk/client";
import type { Collection, FamilyDef } from "pulumi-audience/sdk/contract";
import type { Service } from "./service.ts";
import { isObject, type Props } from "./shape.ts";
import type { Credentials } from "./settings.ts";

function resource(value: unknown, what: string): Props {
  if (!isObject(value)) throw new Error(`${what}: the service answered without a resource body`);
  return value;
}

async function ignoringGone(call: Promise<void>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
}

export function clientService(credentials: Credentials): Service {
  const client = new AudienceClient({ apiKey: credentials.apiKey, baseUrl: credentials.baseUrl });
  const collection = (family: FamilyDef) => family.collection as Collection;
  // The client puts a singleton (insights) at its collection path, without the id.
  const get = async (family: FamilyDef, id: string) => resource(await client.get(collection(family), id), `GET /${family.path}/${id}`);
  return {
    client,
    create: async (family, body) => resource(await client.create(collection(family), body as never), `POST /${family.path}`),
    get,
    async find(family, id) {
      try {
        return await get(family, id);
      } catch (error) {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      }
    },
    update: async (family, id, patch) => resource(await client.update(collection(family), id, patch as never), `PATCH /${family.path}/${id}`),
    delete: (family, id) => ignoringGone(client.delete(collection(family), id)),
    archive: (family, id, body) => ignoringGone(client.archive(collection(family), id, body)),
  };
}
