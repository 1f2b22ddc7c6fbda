// Ids of what the emulator keeps. randomUUID() joins its id from 16 pieces (a tree of 15 cons strings, ~480 bytes
// on the heap), and an id is kept as long as its resource: each is copied into one flat string (56 bytes) first.
import { randomUUID } from "node:crypto";
import { id } from "pulumi-audience/sdk/contract";

/** The contract's id pattern, tested directly: a list names up to 100 ids, and a parse of each costs more than it. */
export const ID_PATTERN = id.def.pattern!;

/** A fresh uuid (v4) as one flat string. */
export function newId(): string {
  return Buffer.from(randomUUID(), "latin1").toString("latin1");
}
