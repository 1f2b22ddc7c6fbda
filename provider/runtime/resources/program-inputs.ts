// Hand-written types the generated program types build on: inputs at every level, the controls every resource
// takes, and what a persona set and an upload take and record beyond their service bodies.
import type * as pulumi from "@pulumi/pulumi";
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
