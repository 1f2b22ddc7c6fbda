// The TypeScript face of a family: camelCase args that take `pulumi.Input` at every level, and outputs for every
// response member. They are generated, with their docs, from the contract's schemas (`program-types.ts`); the
// zod-derived forms below are what a test holds the generated ones equal to.
import type * as pulumi from "@pulumi/pulumi";
import type { Camel, Collection, families } from "pulumi-audience/sdk/contract";
import type { z } from "zod";
import type { controlsSchema } from "../lifecycle/controls.ts";
import type { FamilyTypes, ResourceControls } from "./program-types.ts";

export type { ResourceControls };

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

/** The types of the controls every resource takes, from `controlsSchema`; `ResourceControls` adds their docs. */
export type ControlArgs = {
  [K in keyof ControlInputs]?: pulumi.Input<DeepInput<Exclude<ControlInputs[K], undefined>>>;
};
type ControlInputs = z.input<typeof controlsSchema>;

/** Inputs a persona set takes beyond its service body (see its descriptor). */
export interface PersonaSetExtraArgs {
  /** Persona id -> name, applied through the personas endpoint once the set has built (see `personas`). */
  personaNames?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

/** An upload's inputs: a file's place and bytes (uploads have no JSON body). */
export interface UploadExtraArgs {
  /** Upload directory, as datasets' and atlases' `options.uploadDirectory` name it. */
  directory: pulumi.Input<string>;
  /** File name: `.csv`, `.csv.gz` or `.csv.bz2`. */
  filename: pulumi.Input<string>;
  /** The file's text; or give `source`. */
  content?: pulumi.Input<string>;
  /** Path of a local file to upload, read where the provider runs; a change of its bytes re-uploads it. */
  source?: pulumi.Input<string>;
}

/** Outputs a persona set records beyond its response members. */
export interface PersonaSetExtraOutputs {
  /** The names the service holds for the personas named in `personaNames`, by persona id. */
  readonly personaNames: pulumi.Output<Record<string, string> | undefined>;
}

/** Outputs an upload records beyond its response members. */
export interface UploadExtraOutputs {
  /** Upload directory, as declared. */
  readonly directory: pulumi.Output<string>;
  /** File name, as declared. */
  readonly filename: pulumi.Output<string>;
  /** The file's text, when given as `content`. */
  readonly content: pulumi.Output<string | undefined>;
  /** The local file uploaded, when given as `source`. */
  readonly source: pulumi.Output<string | undefined>;
}

/** Arguments of a family's resource class (documented, generated into `program-types.ts`). */
export type Args<C extends Collection> = FamilyTypes[C]["args"];

/** Outputs of a family's resource class: every response member (the id is the resource's own `id`). */
export type Outputs<C extends Collection> = FamilyTypes[C]["outputs"];

/** A family's resource as a lookup answers it. */
export type Result<C extends Collection> = FamilyTypes[C]["result"];
