// The `audience` resource provider plugin: Pulumi's ResourceProvider gRPC service over the one lifecycle.
// Each call names its family by type token; the lifecycle gets plain values and the family through `__kind`, as
// under the dynamic provider, so every rule (check, diff, create-only, secrets, read normalization) is the same.
import { AsyncLocalStorage } from "node:async_hooks";
import type { sendUnaryData, ServerUnaryCall, ServiceError } from "@grpc/grpc-js";
import type { IResourceProviderServer } from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import type * as provider from "@pulumi/pulumi/proto/provider_pb.js";
import { grpc, providerProto, SERVER_OPTIONS, statusProto } from "../protocol/proto.ts";
import { UNKNOWN, type PropertyMap } from "../protocol/values.ts";
import type { ProviderFamily } from "../runtime/families/index.ts";
import { camelKey } from "pulumi-audience/sdk/contract";
import { KIND_KEY, PROVIDER_KEY } from "../runtime/lifecycle/controls.ts";
import { failureCode } from "../runtime/lifecycle/failure.ts";
import { hostedLifecycle } from "../runtime/lifecycle/hosted.ts";
import { FAILURE_CODE_KEY } from "../protocol/markers.ts";
import { buildNote, planned, type PathChange } from "../runtime/lifecycle/diff.ts";
import { credentialsFor } from "../runtime/lifecycle/settings.ts";
import type { Props } from "../runtime/lifecycle/shape.ts";
import { lookupIn } from "../runtime/lifecycle/lookup.ts";
import { checkedConfig, configFailures, configOf, movedAccounts, providerNaming, serviceFailures, settingsOf } from "./config.ts";
import { VERSION } from "./manifest.ts";
import { packageSchema } from "./schema.ts";
import { familyOfFunction, familyOfResource, typeOfUrn } from "./tokens.ts";
import { plain, received, sent } from "./wire.ts";
import { heldStructService } from "../protocol/held-struct.ts";
import { shownFailure } from "../protocol/check-failure.ts";
import { KnownSecrets } from "../protocol/known-secrets.ts";
import { pathSpelled, programNamed, spelled, spellingOf, spellingSeen, textSpelled, UNSEEN_SPELLING, type Spelling } from "./names.ts";
import { anyProto, emptyProto, pluginProto } from "../protocol/proto.ts";
import { engineLog, type EngineLog } from "./engine-log.ts";
import type { PluginAttach } from "@pulumi/pulumi/proto/plugin_pb.js";

type Unary<Req, Res> = (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void;

export interface PluginOptions {
  /** Where unset configuration comes from (AUDIENCE_API_KEY, AUDIENCE_BASE_URL); the process environment by default. */
  env?: NodeJS.ProcessEnv;
  /** The engine's address as the plugin's arguments give it; Handshake and Attach may give another. */
  engineAddress?: string;
  /** Where warnings and progress go; the engine's Log service at the address known. */
  log?: EngineLog;
}

/** A failed call as gRPC reports it; a resource the service created but that failed after is kept in state. */
function failure(error: unknown, code: number = grpc.status.UNKNOWN): ServiceError {
  const message = error instanceof Error ? error.message : String(error);
  const metadata = new grpc.Metadata();
  // What kind of failure, for the engine that asked (Pulumi's engine ignores it).
  const errorCode = failureCode(error);
  if (errorCode !== undefined) metadata.set(FAILURE_CODE_KEY, errorCode);
  const init = error as { id?: unknown; properties?: Props; reasons?: string[]; providerFamily?: ProviderFamily; secret?: PropertyMap[] };
  if (typeof init.id === "string" && init.properties) {
    const detail = new providerProto.ErrorResourceInitFailed();
    detail.setId(init.id);
    const outputs = init.providerFamily ? outputNames(init.providerFamily) : undefined;
    detail.setProperties(sent(withoutMarkers(init.properties), init.secret ?? [], init.providerFamily?.secretOutputs ?? [], outputs));
    detail.setReasonsList(init.reasons ?? [message]);
    const any = new anyProto.Any();
    any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const status = new statusProto.Status();
    status.setCode(code);
    status.setMessage(message);
    status.addDetails(any);
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  }
  return Object.assign(new Error(message), { code, details: message, metadata }) as ServiceError;
}

/** Runs a handler, answering its result or its error. */
function unary<Req, Res>(run: (request: Req) => Promise<Res> | Res): Unary<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => run(call.request))
      .then((res) => callback(null, res), (error: unknown) => callback(failure(error)));
  };
}

function unimplemented(what: string): Unary<unknown, never> {
  return (_call, callback) => callback({ code: grpc.status.UNIMPLEMENTED, details: `${what} is not implemented by the audience provider` } as ServiceError);
}

/** The lifecycle's view of a resource: the family named, the dynamic provider's leftovers dropped. */
function withCollection(providerFamily: ProviderFamily, props: Props): Props {
  const out: Props = { ...props, [KIND_KEY]: providerFamily.family.collection };
  delete out[PROVIDER_KEY];
  return out;
}

function withoutMarkers(props: Props): Props {
  const { [KIND_KEY]: _kind, [PROVIDER_KEY]: _provider, ...rest } = props;
  return rest;
}

/** A resource's inputs as they arrive (`$gte` or `_gte`), with the TypeScript names the lifecycle reads. */
function inputsOf(providerFamily: ProviderFamily, values: PropertyMap): PropertyMap {
  return programNamed(providerFamily.family.create, values);
}

/** How a resource's inputs are answered: in the names the program gave them. */
function inputNames(providerFamily: ProviderFamily, spelling: Spelling): (values: PropertyMap) => PropertyMap {
  return (values) => spelled(providerFamily.family.create, values, spelling);
}

/**
 * How outputs are answered: in the schema's names, which every generated SDK reads; a read answers them in the
 * program's names when the recorded outputs have those (a state written before the schema named them `$gte`), so
 * refreshing it finds nothing.
 */
function outputNames(providerFamily: ProviderFamily, spelling: Spelling = "schema"): (values: PropertyMap) => PropertyMap {
  return (values) => spelled(providerFamily.family.response, values, spelling);
}

const DIFF_KIND: Record<PathChange["change"], Record<"plain" | "replace", number>> = {
  add: { plain: providerProto.PropertyDiff.Kind.ADD, replace: providerProto.PropertyDiff.Kind.ADD_REPLACE },
  update: { plain: providerProto.PropertyDiff.Kind.UPDATE, replace: providerProto.PropertyDiff.Kind.UPDATE_REPLACE },
  delete: { plain: providerProto.PropertyDiff.Kind.DELETE, replace: providerProto.PropertyDiff.Kind.DELETE_REPLACE },
};

/** The service implementation; one per plugin process, configured once per provider instance. */
export function createPluginServer(options: PluginOptions = {}): IResourceProviderServer {
  const env = options.env ?? process.env;
  // Cancel aborts every wait in flight; the engine shuts the plugin down after it.
  const cancelled = new AbortController();
  const engine = options.log ?? engineLog();
  if (options.engineAddress) engine.connect(options.engineAddress);
  // The resource a call is about, so that what the lifecycle reports during it names that resource.
  const calls = new AsyncLocalStorage<string>();
  // CheckConfig checks the config here: check need not ask the service about each account's key.
  const hosted = hostedLifecycle({
    settings: settingsOf({}, env),
    checkAccounts: false,
    report: (message) => void engine.log("warning", message, calls.getStore() ?? ""),
    progress: (message) => engine.log("info", message, calls.getStore() ?? "", true),
  });
  const { lifecycle } = hosted;
  /** A call about one resource (its URN in the request). */
  const about = <Req extends { getUrn(): string }, Res>(run: (req: Req) => Promise<Res>) => unary<Req, Res>((req) => calls.run(req.getUrn(), () => run(req)));
  let schema: string | undefined;

  const familyOfRequest = (request: { getType(): string; getUrn(): string }) => familyOfResource(request.getType() || typeOfUrn(request.getUrn()));
  const limits = (timeout: number) => ({ timeoutSeconds: timeout > 0 ? timeout : undefined, signal: cancelled.signal });
  /** The lifecycle's errors carry the plain outputs; the plugin keeps their secrets when it reports them. */
  const keeping = async <T>(providerFamily: ProviderFamily, secret: PropertyMap[], run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof Error) Object.assign(error, { providerFamily, secret });
      throw error;
    }
  };

  const secrets = new KnownSecrets();
  function checkResponse(inputs: Props, failures: { property: string; reason: string }[], sources: PropertyMap[], secret: readonly string[], names?: { values(v: PropertyMap): PropertyMap; path(p: string): string; text(t: string): string }) {
    const res = new providerProto.CheckResponse();
    res.setInputs(sent(inputs, sources, secret, names?.values));
    res.setFailuresList(failures.map((f) => {
      // A reason may quote a value the program gave (an id it names): one it marked secret reads `[secret]`.
      const reason = secrets.mask(names ? names.text(f.reason) : f.reason, sources);
      const shown = shownFailure({ property: names ? names.path(f.property) : f.property, reason }, sources[0]);
      return new providerProto.CheckFailure().setProperty(shown.property).setReason(shown.reason);
    }));
    return res;
  }

  const server: IResourceProviderServer = {
    handshake: unary<provider.ProviderHandshakeRequest, provider.ProviderHandshakeResponse>((req) => {
      engine.connect(req.getEngineAddress());
      const res = new providerProto.ProviderHandshakeResponse();
      res.setAcceptSecrets(true);
      res.setAcceptResources(true);
      return res;
    }),
    getPluginInfo: unary(() => new pluginProto.PluginInfo().setVersion(VERSION)),
    getSchema: unary<provider.GetSchemaRequest, provider.GetSchemaResponse>(() => {
      schema ??= JSON.stringify(packageSchema());
      return new providerProto.GetSchemaResponse().setSchema(schema);
    }),

    checkConfig: unary<provider.CheckRequest, provider.CheckResponse>(async (req) => {
      const news = received(req.getNews());
      const inputs = plain(news);
      const naming = providerNaming(req.getUrn());
      const failures = checkedConfig(inputs, env, naming);
      // Only a configuration with nothing wrong in it is tried against the service.
      if (failures.length === 0) failures.push(...await serviceFailures(inputs, env, naming));
      return checkResponse(inputs, failures, [news], ["apiKey", "accounts"]);
    }),
    diffConfig: unary<provider.DiffRequest, provider.DiffResponse>(async (req) => {
      const olds = plain(received(req.getOldInputs() ?? req.getOlds()));
      const news = plain(received(req.getNews()));
      const changed = [...new Set([...Object.keys(olds), ...Object.keys(news)])]
        .filter((key) => JSON.stringify(olds[key]) !== JSON.stringify(news[key]));
      // A new key or URL of the same account changes nothing managed; one of another account replaces what it holds.
      const moved = changed.length > 0 ? await movedAccounts(olds, news, changed, env) : [];
      const res = new providerProto.DiffResponse();
      res.setChanges(changed.length > 0 ? providerProto.DiffResponse.DiffChanges.DIFF_SOME : providerProto.DiffResponse.DiffChanges.DIFF_NONE);
      res.setDiffsList(changed);
      res.setReplacesList(moved);
      // Detailed, so that a plan names what changed (`~ apiKey`), secret as it is.
      res.setHasdetaileddiff(true);
      for (const key of changed) {
        const change = olds[key] === undefined ? "add" : news[key] === undefined ? "delete" : "update";
        res.getDetaileddiffMap().set(key, new providerProto.PropertyDiff().setKind(DIFF_KIND[change][moved.includes(key) ? "replace" : "plain"] as provider.PropertyDiff.Kind).setInputdiff(true));
      }
      return res;
    }),
    configure: unary<provider.ConfigureRequest, provider.ConfigureResponse>((req) => {
      const args = req.hasArgs() ? plain(received(req.getArgs())) : undefined;
      const config = configOf(Object.fromEntries(req.getVariablesMap().toObject()), args);
      const naming = providerNaming(req.getUrn());
      const problems = configFailures(config, naming);
      if (problems.length > 0) throw Object.assign(new Error(problems.map((p) => p.reason).join("; ")), { code: grpc.status.INVALID_ARGUMENT });
      // A resource's `account` names an entry of its provider's accounts: an explicit provider's own, not the stack's.
      hosted.configure({ ...settingsOf(config, env), accountsGiven: naming.key("accounts") });
      const res = new providerProto.ConfigureResponse();
      res.setAcceptsecrets(true);
      res.setAcceptresources(true);
      res.setSupportspreview(true);
      return res;
    }),

    check: about<provider.CheckRequest, provider.CheckResponse>(async (req) => {
      const providerFamily = familyOfRequest(req);
      const given = received(req.getNews());
      // Which names the program wrote, if it wrote a member whose two names differ (messages follow only that).
      const seen = spellingSeen(providerFamily.family.create, given);
      const spelling = seen ?? UNSEEN_SPELLING;
      const news = inputsOf(providerFamily, given);
      const result = await lifecycle.check(withCollection(providerFamily, plain(inputsOf(providerFamily, received(req.getOlds())))), withCollection(providerFamily, plain(news)));
      const names = { values: inputNames(providerFamily, spelling), path: (path: string) => pathSpelled(providerFamily.family.create, path, spelling), text: (text: string) => textSpelled(text, seen) };
      return checkResponse(withoutMarkers(result.inputs ?? {}), result.failures ?? [], [news], providerFamily.secretOutputs, names);
    }),
    diff: about<provider.DiffRequest, provider.DiffResponse>(async (req) => {
      const providerFamily = familyOfRequest(req);
      const olds = received(req.getOlds());
      const news = received(req.getNews());
      // Paths name members as the inputs do, so that the engine finds them there.
      const spelling = spellingOf(providerFamily.family.create, news, received(req.getOldInputs()));
      const declared = withCollection(providerFamily, plain(inputsOf(providerFamily, news)));
      const recorded = withCollection(providerFamily, plain(programNamed(providerFamily.family.response, olds)));
      const compared = await planned(hosted.settings(), req.getId(), recorded, declared);
      const { changed, replaces, details } = compared;
      // A build re-run or waited for is no property: the plan says it in a warning, as the dynamic face's does.
      const note = buildNote(declared, req.getId(), compared);
      if (note !== undefined) void engine.log("warning", note, req.getUrn());
      const res = new providerProto.DiffResponse();
      res.setChanges(changed.length > 0 || replaces.length > 0 ? providerProto.DiffResponse.DiffChanges.DIFF_SOME : providerProto.DiffResponse.DiffChanges.DIFF_NONE);
      res.setReplacesList(replaces);
      res.setDeletebeforereplace(compared.deleteBeforeReplace);
      res.setDiffsList([...new Set(details.map((d) => d.path.split(/[.[]/)[0] ?? d.path))]);
      res.setHasdetaileddiff(true);
      for (const detail of details) {
        const diff = new providerProto.PropertyDiff();
        diff.setKind(DIFF_KIND[detail.change][detail.replace ? "replace" : "plain"] as provider.PropertyDiff.Kind);
        diff.setInputdiff(true);
        res.getDetaileddiffMap().set(pathSpelled(providerFamily.family.create, detail.path, spelling), diff);
      }
      return res;
    }),
    create: about<provider.CreateRequest, provider.CreateResponse>(async (req) => {
      const providerFamily = familyOfRequest(req);
      const inputs = inputsOf(providerFamily, received(req.getProperties()));
      const res = new providerProto.CreateResponse();
      if (req.getPreview()) {
        // Nothing is sent: the inputs are what is known; what the service sets (`id` aside) is marked unknown, so that
        // a plan tells a create (`createdAt` to come) from an update, whose plan carries no such member.
        const planned: Props = { ...plain(inputs) };
        for (const member of providerFamily.family.readOnly) if (member !== "id") planned[camelKey(member)] ??= UNKNOWN;
        return res.setProperties(sent(planned, [inputs], providerFamily.secretOutputs, outputNames(providerFamily)));
      }
      const created = await keeping(providerFamily, [inputs], () => lifecycle.create(withCollection(providerFamily, plain(inputs)), limits(req.getTimeout())));
      return res.setId(created.id).setProperties(sent(withoutMarkers(created.outs ?? {}), [inputs], providerFamily.secretOutputs, outputNames(providerFamily)));
    }),
    read: about<provider.ReadRequest, provider.ReadResponse>(async (req) => {
      const providerFamily = familyOfRequest(req);
      const recorded = received(req.getProperties());
      const state = programNamed(providerFamily.family.response, recorded);
      const given = received(req.getInputs());
      const inputs = inputsOf(providerFamily, given);
      // An import sends the id alone: the resource is read from the account the inputs (if any) name.
      const found = await lifecycle.read(req.getId(), withCollection(providerFamily, { ...plain(inputs), ...plain(state) }), Object.keys(given).length > 0 ? withCollection(providerFamily, plain(inputs)) : undefined);
      const res = new providerProto.ReadResponse();
      if (!found.id) return res; // gone: the engine drops it from state
      res.setId(found.id);
      res.setProperties(sent(withoutMarkers(found.props ?? {}), [state, inputs], providerFamily.secretOutputs, outputNames(providerFamily, spellingOf(providerFamily.family.response, recorded))));
      // An import has no inputs: it gets the schema's names, as a program generated from the schema writes them.
      res.setInputs(sent(withoutMarkers(found.inputs ?? {}), [inputs, state], providerFamily.secretOutputs, inputNames(providerFamily, spellingOf(providerFamily.family.create, given))));
      return res;
    }),
    update: about<provider.UpdateRequest, provider.UpdateResponse>(async (req) => {
      const providerFamily = familyOfRequest(req);
      const olds = programNamed(providerFamily.family.response, received(req.getOlds()));
      const news = inputsOf(providerFamily, received(req.getNews()));
      const res = new providerProto.UpdateResponse();
      if (req.getPreview()) return res.setProperties(sent(plain(news), [news], providerFamily.secretOutputs, outputNames(providerFamily)));
      const updated = await keeping(providerFamily, [news, olds], () =>
        lifecycle.update(req.getId(), withCollection(providerFamily, plain(olds)), withCollection(providerFamily, plain(news)), limits(req.getTimeout())));
      return res.setProperties(sent(withoutMarkers(updated.outs ?? {}), [news, olds], providerFamily.secretOutputs, outputNames(providerFamily)));
    }),
    delete: about(async (req: provider.DeleteRequest) => {
      const providerFamily = familyOfRequest(req);
      await lifecycle.delete(req.getId(), withCollection(providerFamily, plain(programNamed(providerFamily.family.response, received(req.getProperties())))));
      return new emptyProto.Empty();
    }),
    invoke: unary<provider.InvokeRequest, provider.InvokeResponse>(async (req) => {
      const providerFamily = familyOfFunction(req.getTok());
      const args = plain(received(req.getArgs())) as { name?: string; id?: string; account?: string };
      const settings = hosted.settings();
      const found = await lookupIn(() => credentialsFor(settings, args.account), providerFamily.family.collection as never, args, settings.maxRetries);
      const res = new providerProto.InvokeResponse();
      res.setReturn(sent(found as Props, [], providerFamily.secretOutputs, outputNames(providerFamily)));
      return res;
    }),
    cancel: unary(() => {
      cancelled.abort();
      return new emptyProto.Empty();
    }),

    parameterize: unimplemented("Parameterize"),
    call: unimplemented("Call"),
    construct: unimplemented("Construct"),
    list: (call) => {
      call.emit("error", { code: grpc.status.UNIMPLEMENTED, details: "List is not implemented by the audience provider" });
    },
    // PULUMI_DEBUG_PROVIDERS=audience:<port>: the engine uses a plugin someone started, and says where it is.
    attach: unary((req: PluginAttach) => {
      engine.connect(req.getAddress());
      return new emptyProto.Empty();
    }),
    getMapping: unary(() => new providerProto.GetMappingResponse()),
    getMappings: unary(() => new providerProto.GetMappingsResponse()),
  };
  return server;
}

export interface RunningPlugin {
  port: number;
  close(): Promise<void>;
}

/** Serves the plugin on 127.0.0.1 (a free port), as the engine expects of every plugin. */
export async function servePlugin(options: PluginOptions = {}): Promise<RunningPlugin> {
  const server = new grpc.Server(SERVER_OPTIONS);
  const log = options.log ?? engineLog();
  server.addService(heldStructService(), createPluginServer({ ...options, log }) as never);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  return {
    port,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())).then(() => log.close()),
  };
}
