// The TypeScript face of a family: camelCase args that take `pulumi.Input` at every level, and outputs for every
// response member. They are generated, with their docs, from the contract's schemas
// (`generated/program-types.ts`); the zod-derived forms below are what a test holds the generated ones equal to.
import type { Camel, Collection, families } from "pulumi-audience/sdk/contract";
import type { z } from "zod";
import type { FamilyTypes, ResourceControls } from "../generated/program-types.ts";

export type { ResourceControls };

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

/** Arguments of a family's resource class (documented, generated into `generated/program-types.ts`). */
export type Args<C extends Collection> = FamilyTypes[C]["args"];

/** Outputs of a family's resource class: every response member (the id is the resource's own `id`). */
export type Outputs<C extends Collection> = FamilyTypes[C]["outputs"];

/** A family's resource as a lookup answers it. */
export type Result<C extends Collection> = FamilyTypes[C]["result"];
