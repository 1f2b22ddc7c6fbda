// A resource's property map taken apart: its family, the controls, its own members and the family's extra inputs;
// and the wire bodies behind declared inputs and recorded outputs.
import { toWire, type FamilyDef } from "pulumi-audience/sdk/contract";
import { familyOf, type ProviderFamily } from "../families/index.ts";
import { CONTROL_KEYS, CREATE_LOOK_ONLY_KEY, CREATE_STARTED_KEY, CREDENTIAL_SOURCES_KEY, KIND_KEY, PROVIDER_KEY, STEP_TIMEOUT_KEY, type Controls } from "./controls.ts";
import { REPLACE_ON_CHANGES_KEY } from "../markers.ts";
import { canonical, wireOf, type Props } from "./shape.ts";

export interface Parts {
  providerFamily: ProviderFamily;
  controls: Controls;
  /** The resource's own camelCase members, as the program declared them. */
  members: Props;
  /** Declared inputs the family handles itself (`ProviderFamily.extraInputs`). */
  extras: Props;
  /** The class's record of where the credentials came from, kept in outputs so that read can give it back. */
  recorded: Props;
}

/** Inputs that tell the lifecycle something rather than describe the resource. */
export const MARKERS: readonly string[] = [KIND_KEY, PROVIDER_KEY, CREATE_STARTED_KEY, CREATE_LOOK_ONLY_KEY, STEP_TIMEOUT_KEY, CREDENTIAL_SOURCES_KEY, REPLACE_ON_CHANGES_KEY];

export const CONTROLS: ReadonlySet<string> = new Set<string>(CONTROL_KEYS);

/**
 * Whether a check's `olds` are a resource's recorded inputs rather than the nothing a create is checked against (to
 * which the plugin still adds the family's marker).
 */
export function isRecorded(olds: Props): boolean {
  return Object.keys(olds).some((key) => !MARKERS.includes(key));
}

/** The wire body of a resource's recorded inputs, or undefined when there are none (a create) or they do not split. */
export function recordedWire(family: FamilyDef, olds: Props): Props | undefined {
  if (!isRecorded(olds)) return undefined;
  try {
    return wireOf(family.create, split(olds).members);
  } catch {
    return undefined;
  }
}

export function split(props: Props): Parts {
  const providerFamily = familyOf(props[KIND_KEY]);
  const controls: Props = {};
  const members: Props = {};
  const extras: Props = {};
  const recorded: Props = props[CREDENTIAL_SOURCES_KEY] === undefined ? {} : { [CREDENTIAL_SOURCES_KEY]: props[CREDENTIAL_SOURCES_KEY] };
  for (const [key, value] of Object.entries(props)) {
    if (MARKERS.includes(key) || value === undefined || key === providerFamily.digest?.key) continue;
    if (CONTROLS.has(key)) controls[key] = value;
    else if (providerFamily.extraInputs.includes(key)) extras[key] = value;
    else members[key] = value;
  }
  return { providerFamily, controls: controls as Controls, members, extras, recorded };
}

/**
 * What a create of these inputs sends: the family, the account and the wire body; no body for a family that makes
 * its resources its own way (an upload), which no list can match.
 */
export function declaredCreate(props: Props): { family: FamilyDef; account: string | undefined; desired: Props | undefined } {
  const { providerFamily, controls, members } = split(props);
  return { family: providerFamily.family, account: controls.account, desired: providerFamily.create ? undefined : wireOf(providerFamily.family.create, members) };
}

/** The canonical wire body behind recorded outputs (a response seen through the create shape). */
export function recordedBody(family: FamilyDef, outputs: Props): unknown {
  return canonical(family.create, toWire(family.response, outputs));
}

export function declaredBody(family: FamilyDef, members: Props): unknown {
  return canonical(family.create, wireOf(family.create, members));
}

/** The controls as recorded (and the credentials' record), with the family they belong to. */
export function controlsOf(parts: Parts): Props {
  return { ...parts.controls, ...parts.recorded, [KIND_KEY]: parts.providerFamily.family.collection };
}
