// What every route module receives: the model, the build engine, auth and rendering helpers.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Builds, BuildHooks } from "./builds.ts";
import type { Account, Doc, StoredResource } from "./model.ts";
import type { ServiceState } from "./state.ts";
import type { Faults } from "./faults.ts";
import type { RequestLog } from "./request-log.ts";
import type { Webhooks } from "./webhooks.ts";
import type { World } from "./world/population.ts";

/** An account's resources as wire documents (secrets already `<secret>`), by collection and id. */
export interface ResourceReader {
  get(accountId: string, collection: string, id: string): Doc | undefined;
  list(accountId: string, collection: string, options?: { archived?: boolean }): Doc[];
  /** Stores server-computed members on a resource (e.g. counts), without starting a build. */
  update(accountId: string, collection: string, id: string, fields: Doc): Doc | undefined;
}

export interface UsageCounter {
  add(accountId: string, metric: string, n?: number): void;
  get(accountId: string): Record<string, number>;
}

export interface EmulatorContext {
  state: ServiceState;
  resources: ResourceReader;
  usage: UsageCounter;
  builds: BuildHooks & Builds;
  faults: Faults;
  webhooks: Webhooks;
  requests: RequestLog;
  /** The account's synthetic population, made on first use as `startEmulator({ world })` asks. */
  worldOf(accountId: string): World;
  /** The account of the request's key (set by the auth hook); throws 401 when there is none. */
  account(request: FastifyRequest): Account;
  /** A resource owned by the request's account: 404 when it exists nowhere, 403 when another account owns it. */
  owned(request: FastifyRequest, collection: string, id: string): StoredResource;
  /** The wire form of a resource as answered to this request (secrets masked, signed URLs fresh): send it, never change it. */
  present(request: FastifyRequest, resource: Readonly<StoredResource>): Readonly<Doc>;
  /** The JSON text of an answer; the text of each stored document answered is kept (emulator/resource-index.ts). */
  json(value: unknown): string;
  /** `http://host:port` as the client reached the service, without `/v1`. */
  baseUrl(request: FastifyRequest): string;
  /** Forgets every account and resource and seeds the default account again (same key). */
  reset(): void;
}

/** A route module: `register(app, ctx)`; the core's are listed in routes/index.ts, a family's is its module's `routes`. */
export type RouteModule = (app: FastifyInstance, ctx: EmulatorContext) => void;
