// The contract's families, each joined to the emulator module handed in for it. What the core iterates over
// families (routes, builds, rules, /openapi.json) is handed this registry; the state reads it only as
// `KeptFamilies` (model.ts).
import { families, type Collection, type FamilyDef } from "pulumi-audience/sdk/contract";
import type { EmulatorFamily } from "./family.ts";

/** A family of the contract with its emulator module. */
export type RegisteredFamily = FamilyDef & { emulator: EmulatorFamily };

/** Whether the family answers its stored documents as they are: no presentation of its own, no credentials to mask. */
export function answersAsStored(family: RegisteredFamily): boolean {
  return family.emulator.present === undefined && family.secrets.length === 0;
}

/** Every family of the contract, in its order, each with the module handed in for it (or an empty one). */
export class FamilyRegistry {
  readonly #all = new Map<string, RegisteredFamily>();

  constructor(modules: readonly EmulatorFamily[]) {
    const byCollection = new Map<string, EmulatorFamily>();
    for (const module of modules) {
      if (!Object.hasOwn(families, module.collection)) throw new Error(`An emulator family module names ${module.collection}, which the contract does not have`);
      if (byCollection.has(module.collection)) throw new Error(`Two emulator family modules name ${module.collection}`);
      byCollection.set(module.collection, module);
    }
    for (const [collection, def] of Object.entries(families as Record<string, FamilyDef>)) {
      this.#all.set(collection, { ...def, emulator: byCollection.get(collection) ?? { collection: collection as Collection } });
    }
  }

  /** The family of a collection name, or undefined for a collection the contract does not have. */
  of(collection: string): RegisteredFamily | undefined {
    return this.#all.get(collection);
  }

  all(): RegisteredFamily[] {
    return [...this.#all.values()];
  }
}
