// The TypeScript face of a family: camelCase args that take `pulumi.Input` at every level, and outputs for every
// response member. Both are derived from the contract's zod schemas, so they cannot drift from it.
import type * as pulumi from "@pulumi/pulumi";
import type { Camel, Collection, families } from "pulumi-audience/sdk/contract";
import type { z } from "zod";
import type { controlsSchema } from "../lifecycle/controls.ts";

type Primitive = string | number | boolean | null | undefined;

/** A value whose members may each be a `pulumi.Input`. */
export type DeepInput<T> = T extends Primitive
  ? T
  : T extends readonly (infer E)[]
    ? pulumi.Input<DeepInput<E>>[]
    : T extends object
      ? { [K in keyof T]: pulumi.Input<DeepInput<T[K]>> }
      : T;

type Family<C extends Collection> = (typeof families)[C];

type WithoutIndex<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: Known<T[K]> };
/**
 * The declared members of a type: answers are read leniently (unknown server members pass through), which gives
 * them an index signature that would hide every declared member from the program's types. Pure maps stay maps.
 */
export type Known<T> = T extends readonly (infer E)[]
  ? Known<E>[]
  : T extends object
    ? string extends keyof T
      ? keyof WithoutIndex<T> extends never
        ? [T[string & keyof T]] extends [never] ? { [K in never]: never } : { [key: string]: Known<T[string & keyof T]> }
        : WithoutIndex<T>
      : WithoutIndex<T>
    : T;

/** The program-facing shape of a family's create body. */
export type Config<C extends Collection> = Camel<Known<z.input<Family<C>["create"]>>>;
/** The program-facing shape of a family's response. */
export type State<C extends Collection> = Camel<Known<z.output<Family<C>["response"]>>>;

/**
 * Inputs every resource takes that steer the provider; recorded in state, never sent to the service. Each is
 * documented on `controlsSchema`, which checks them.
 */
export type ResourceControls = {
  [K in keyof ControlInputs]?: pulumi.Input<DeepInput<Exclude<ControlInputs[K], undefined>>>;
};
type ControlInputs = z.input<typeof controlsSchema>;

/** Inputs some families take beyond their service body (see the family's `extraInputs`). */
interface ExtraArgs {
  persona_sets: {
    /** Persona id -> name, applied through the personas endpoint once the set has built (see `personas`). */
    personaNames?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  };
  uploads: {
    /** Upload directory, as datasets' and atlases' `options.uploadDirectory` name it. */
    directory: pulumi.Input<string>;
    /** File name: `.csv`, `.csv.gz` or `.csv.bz2`. */
    filename: pulumi.Input<string>;
    /** The file's text; or give `source`. */
    content?: pulumi.Input<string>;
    /** Path of a local file to upload, read where the provider runs; a change of its bytes re-uploads it. */
    source?: pulumi.Input<string>;
  };
}

/** Outputs some families record beyond their response members. */
interface ExtraOutputs {
  persona_sets: { readonly personaNames: pulumi.Output<Record<string, string> | undefined> };
  uploads: {
    /** SHA-256 of the uploaded bytes. */
    readonly sha256: pulumi.Output<string>;
    readonly content: pulumi.Output<string | undefined>;
    readonly source: pulumi.Output<string | undefined>;
  };
}

/** Arguments of a family's resource class. */
export type Args<C extends Collection> = DeepInput<Config<C>> & ResourceControls & (C extends keyof ExtraArgs ? ExtraArgs[C] : unknown);

/** Outputs of a family's resource class: every response member (the id is the resource's own `id`). */
export type Outputs<C extends Collection> = {
  readonly [K in Exclude<keyof State<C>, "id">]-?: pulumi.Output<State<C>[K]>;
} & (C extends keyof ExtraOutputs ? ExtraOutputs[C] : unknown);
