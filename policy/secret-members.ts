// Which members the program marked secret. The engine sends an analyzer each secret value wrapped, but
// @pulumi/policy unwraps them before a rule sees the props (pulumi/pulumi-policy#241: a policy cannot tell a secret),
// so its deserializer is wrapped here to keep where the wrappers were beside the props it returns. Messages then
// never print a secret value.
import { createRequire } from "node:module";
import { isObject } from "../sdk/contract/index.ts";

/** Where the values the program marked secret are: `true` at a secret value, the same keys as the props above it. */
export type SecretTree = true | readonly (SecretTree | undefined)[] | { readonly [key: string]: SecretTree | undefined };

/** The props' own record of their secret members (a non-enumerable key, so no rule that lists the props meets it). */
export const SECRET_MEMBERS: unique symbol = Symbol("pulumi-audience secret members");

/** Pulumi's wire marking of a secret value (`@pulumi/pulumi/runtime/rpc`: specialSigKey, specialSecretSig). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** The secret members of a property map as the engine sends it; undefined where nothing below is secret. */
export function secretTree(wire: unknown): SecretTree | undefined {
  if (Array.isArray(wire)) {
    const elements = wire.map(secretTree);
    return elements.some((e) => e !== undefined) ? elements : undefined;
  }
  if (!isObject(wire)) return undefined;
  if (wire[SIG_KEY] === SECRET_SIG) return true;
  const members = Object.entries(wire).flatMap(([key, value]) => {
    const tree = secretTree(value);
    return tree === undefined ? [] : [[key, tree] as const];
  });
  return members.length > 0 ? Object.fromEntries(members) : undefined;
}

interface Deserializer {
  deserializeProperties(struct: { toJavaScript(): unknown }, proxySecrets: boolean): unknown;
}

const WRAPPED = Symbol("pulumi-audience wrapped");

/**
 * Wraps the deserializer of the @pulumi/policy this package resolves (the one its pack, and a pack composed beside
 * it, run), once per process; whether it could. A pack run by another copy gets props without the record, which
 * `secretMembers` reads as "any member may be secret".
 */
function recordSecrets(): boolean {
  let deserializer: Deserializer;
  try {
    deserializer = createRequire(import.meta.url)("@pulumi/policy/deserialize.js") as Deserializer;
  } catch {
    return false;
  }
  const original = deserializer.deserializeProperties as Deserializer["deserializeProperties"] & { [WRAPPED]?: true };
  if (typeof original !== "function") return false;
  if (original[WRAPPED]) return true;
  const wrapped = (struct: { toJavaScript(): unknown }, proxySecrets: boolean): unknown => {
    const props = original.call(deserializer, struct, proxySecrets);
    if (isObject(props)) Object.defineProperty(props, SECRET_MEMBERS, { value: secretTree(struct.toJavaScript()) ?? {} });
    return props;
  };
  deserializer.deserializeProperties = Object.assign(wrapped, { [WRAPPED]: true as const });
  return true;
}

/** Whether the props the analyzer hands this process carry their record of secret members. */
export const RECORDING_SECRETS = recordSecrets();

/** The record the props carry, or undefined when they carry none (every member may then be secret). */
export function secretMembers(props: object): SecretTree | undefined {
  const record = (props as { [SECRET_MEMBERS]?: unknown })[SECRET_MEMBERS];
  return record === true || Array.isArray(record) || isObject(record) ? (record as SecretTree) : undefined;
}
