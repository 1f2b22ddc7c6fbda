// The lifecycle's calls made with the SDK client, one client per account.
import { AudienceApiError, AudienceClient, AuthenticationError, DEFAULT_RETRY, NotFoundError, RateLimitedError, type RetryNotice } from "pulumi-audience/sdk/client";
import type { FamilyDef } from "pulumi-audience/sdk/contract";
import type { Service } from "./service.ts";
import { camelPath, isObject, type Props } from "./shape.ts";
import { credentialsFor, DEFAULT_MAX_RETRIES, type Credentials, type Settings } from "./settings.ts";

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

/** What the account is called in messages: its name under `audience:accounts`, or the default one. */
export function accountLabel(account: string | undefined): string {
  return account ? `account "${account}"` : "the default account (audience:apiKey)";
}

/**
 * A service error in the program's words: a refused key names its account; validation paths are the program's
 * camelCase paths (`population.cohortIds[0]`), not the wire's. The method, path, status, code and note stay.
 */
export function explained(error: unknown, family: FamilyDef, account: string | undefined): unknown {
  if (!(error instanceof AudienceApiError)) return error;
  const head = `${error.method} ${error.path}: ${error.status} ${error.code ?? "error"}`;
  if (error instanceof AuthenticationError) {
    return new Error(`the service refused the API key of ${accountLabel(account)}: ${head}${error.note ? `: ${error.note}` : ""}`, { cause: error });
  }
  // Refused for the service's rate limit: nothing was done, which the bare 429 does not say, nor when to come back.
  if (error instanceof RateLimitedError) {
    const long = error.retryAfterMs !== undefined && error.retryAfterMs > (DEFAULT_RETRY.maxRetryAfterMs ?? 0);
    const wait = long ? `asks to wait ${Math.ceil(error.retryAfterMs! / 1000)}s before another request (longer than a request waits)` : "kept refusing it for its rate limit, retries included";
    return new Error(`${error.message}: the service ${wait}; nothing was changed, and running again after that finishes the step`, { cause: error });
  }
  if (!error.validationErrors?.length) return error;
  const fields = error.validationErrors.map((f) => (f.path ? `${camelPath(family.create, f.path)}: ${f.message}` : f.message));
  return new Error(`${head}: ${fields.join("; ")}`, { cause: error });
}

export function clientService(credentials: Credentials, account?: string, maxRetries = DEFAULT_MAX_RETRIES, onRetry?: (notice: RetryNotice) => void): Service {
  const client = new AudienceClient({ apiKey: credentials.apiKey, baseUrl: credentials.baseUrl, retry: { maxRetries }, ...(onRetry ? { onRetry } : {}) });
  const explain = (family: FamilyDef) => (error: unknown) => {
    throw explained(error, family, account);
  };
  // The client puts a singleton (insights) at its collection path, without the id.
  const get = async (family: FamilyDef, id: string) => resource(await client.get(family, id).catch(explain(family)), `GET /${family.path}/${id}`);
  const held = new Map<string, Set<string>>();
  const waiting = new Map<string, { ids: Set<string>; listed: Promise<Set<string>> }>();
  /** The ids among those asked in this turn of the event loop that the account holds: one list per family. */
  const heldAmong = (family: FamilyDef, ids: readonly string[]): Promise<Set<string>> => {
    let batch = waiting.get(family.collection);
    if (!batch) {
      const asked = new Set<string>();
      const listed = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        waiting.delete(family.collection);
        return new Set((await client.list(family, { ids: [...asked] }).catch(explain(family))).map((doc) => String((doc as { id?: unknown }).id)));
      });
      batch = { ids: asked, listed };
      waiting.set(family.collection, batch);
    }
    for (const id of ids) batch.ids.add(id);
    return batch.listed;
  };
  return {
    client,
    async missing(family, ids) {
      const known = held.get(family.collection) ?? new Set<string>();
      held.set(family.collection, known);
      const ask = ids.filter((id) => !known.has(id));
      if (ask.length === 0) return [];
      const found = await heldAmong(family, ask);
      for (const id of found) known.add(id);
      return ask.filter((id) => !found.has(id));
    },
    create: async (family, body) => resource(await client.create(family, body).catch(explain(family)), `POST /${family.path}`),
    get,
    list: async (family) => (await client.list(family)).map((r) => resource(r, `GET /${family.path}`)),
    async find(family, id) {
      try {
        return await get(family, id);
      } catch (error) {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      }
    },
    update: async (family, id, patch) => resource(await client.update(family, id, patch).catch((error: unknown) => {
      // Deleted outside the program since the stack last read it: what to run, not only the service's 404.
      if (error instanceof NotFoundError) {
        throw new Error(`${error.method} ${error.path}: ${error.status} ${error.code ?? "error"}: ${family.className} ${id} is gone from the account (deleted outside the program): refresh the stack (\`pulumi refresh\`, or \`audience run refresh\`) to record that, and the next up creates it again`, { cause: error });
      }
      throw explained(error, family, account);
    }), `PATCH /${family.path}/${id}`),
    delete: (family, id) => ignoringGone(client.delete(family, id)).catch(explain(family)),
    archive: (family, id, body) => ignoringGone(client.archive(family, id, body)).catch(explain(family)),
    unarchive: (family, id) => client.unarchive(family, id).catch(explain(family)),
  };
}

/** One service per account, made on first use from the current settings; `clear` when the settings change. */
export function accountServices(settings: () => Settings, onRetry?: (notice: RetryNotice) => void): { service(account: string | undefined): Service; clear(): void } {
  const services = new Map<string, Service>();
  return {
    service(account) {
      const key = account ?? "";
      let service = services.get(key);
      if (!service) {
        const current = settings();
        service = clientService(credentialsFor(current, account), account, current.maxRetries, onRetry);
        services.set(key, service);
      }
      return service;
    },
    clear: () => services.clear(),
  };
}
