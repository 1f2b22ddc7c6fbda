// Read: what the service holds now, as outputs and as the inputs a program would write to get it (refresh's view).
import type * as pulumi from "@pulumi/pulumi";
import { fromWire, jsonEqual } from "pulumi-audience/sdk/contract";
import { familyOf, perFamily, providerFamilies, type ProviderFamily } from "../families/index.ts";
import { CONTROL_KEYS, CREATE_STARTED_KEY, CREDENTIAL_SOURCES_KEY, KIND_KEY } from "./controls.ts";
import type { Environment } from "./environment.ts";
import { ARCHIVED_KEY, archivedAt, outputsOf } from "./outputs.ts";
import { controlsOf, CONTROLS, MARKERS, split, type Parts } from "./parts.ts";
import { canonical, keepSecrets, keepSignedUrls, readsAsDeclared, type Props } from "./shape.ts";

/**
 * `props` are the recorded outputs (the inputs when there are none); `recordedInputs` the recorded inputs, when
 * the host gives them (the engine's own hosts do; Pulumi's dynamic-provider host does not).
 */
export async function read(env: Environment, id: string, props: Props, recordedInputs?: Props): Promise<pulumi.dynamic.ReadResult> {
  const recorded = split(props);
  const { providerFamily } = recorded;
  const service = env.service(recorded.controls.account);
  const response = providerFamily.find ? await providerFamily.find(service, id, props) : await service.find(providerFamily.family, id);
  if (response === undefined) return {};
  // An import records no extra inputs: those the id and the answer tell are read as well.
  const parts = providerFamily.readExtras ? { ...recorded, extras: { ...providerFamily.readExtras(id, response), ...recorded.extras } } : recorded;
  const outs = keepSignedUrls(outputsOf(parts, response, parts.members), props) as Props;
  const inputs = recordedInputs !== undefined && readsBackOver(props, recordedInputs, response)
    ? recordedInputs
    : withoutUnrecordedDigest(providerFamily, inputsRead(parts, response), props, recordedInputs);
  return { id, props: outs, inputs };
}

/**
 * `readsBack` for the props `read` is given: they hold the recorded outputs over the inputs, so it holds only
 * where the two agree on every input.
 */
function readsBackOver(props: Props, recordedInputs: Props, response: Props): boolean {
  for (const key of Object.keys(recordedInputs)) if (!jsonEqual(props[key], recordedInputs[key])) return false;
  return readsBack(props, recordedInputs, response);
}

/** The inputs a program would write to get this resource, in the form check records them (defaults applied). */
function inputsRead(parts: Parts, response: Props): Props {
  const { create } = parts.providerFamily.family;
  const declared = fromWire(create, canonical(create, response));
  const archived = archivedAt(response);
  const digest = parts.providerFamily.digest?.found(response);
  return {
    ...(keepSecrets(declared, parts.members) as Props), ...parts.extras, ...controlsOf(parts),
    ...(archived ? { [ARCHIVED_KEY]: archived } : {}), ...(digest !== undefined ? { [parts.providerFamily.digest!.key]: digest } : {}),
  };
}

/**
 * Read's inputs for a state recorded before the family's digest was an input (no digest among `recordedInputs`):
 * while the service still holds what the recorded outputs say it held, the digest is left out, so refresh finds
 * nothing; bytes changed since are recorded, and show as drift.
 */
function withoutUnrecordedDigest(providerFamily: ProviderFamily, inputs: Props, outputs: Props, recordedInputs: Props | undefined): Props {
  const key = providerFamily.digest?.key;
  if (key === undefined || recordedInputs === undefined || key in recordedInputs || inputs[key] !== outputs[key]) return inputs;
  const { [key]: _digest, ...rest } = inputs;
  return rest;
}

/**
 * The inputs `read` records for a resource whose service document is already at hand (a list's answer), without
 * its outputs: what refresh would write over `props`' inputs. Families that find their resources their own way
 * (`find`) are read through `read`.
 */
export function readInputs(props: Props, response: Props): Props {
  return inputsRead(split(props), response);
}

/** The recorded outputs `readsBack` reads: the controls, the family's extra inputs and the credentials' record (one list per family). */
export const readBackOutputKeys: (providerFamily: ProviderFamily) => readonly string[] =
  perFamily((providerFamily) => [...CONTROL_KEYS, ...providerFamily.extraInputs, CREDENTIAL_SOURCES_KEY]);

/** The inputs no service document holds: markers, controls and the family's extra inputs (one set per family). */
const notReadBack: (providerFamily: ProviderFamily) => ReadonlySet<string> =
  perFamily((providerFamily) => new Set([...MARKERS, ...CONTROLS, ...providerFamily.extraInputs]));

/**
 * True when `read` over recorded `outputs` and `inputs` would give back exactly `inputs` from `response`, decided
 * by one walk of the response instead of its normalization (see `readsAsDeclared`). False means only "read to know".
 */
export function readsBack(outputs: Props, inputs: Props, response: Props): boolean {
  const collection = inputs[KIND_KEY];
  if (typeof collection !== "string" || !Object.hasOwn(providerFamilies, collection)) return false;
  const providerFamily = familyOf(collection);
  if (providerFamily.digest) return false; // the digest is the service's to tell
  if (archivedAt(response) !== undefined) return false; // read records it among the inputs
  const members: Props = {};
  const notRead = notReadBack(providerFamily);
  for (const key in inputs) {
    const value = inputs[key];
    if (value === undefined || key === CREATE_STARTED_KEY) return false; // read leaves it out
    if (!notRead.has(key)) members[key] = value;
  }
  // Controls and extras come back from the recorded values, the inputs' first: one only the outputs hold differs.
  for (const key of readBackOutputKeys(providerFamily)) if (!(key in inputs) && outputs[key] !== undefined) return false;
  return readsAsDeclared(providerFamily.family.create, response, members);
}
