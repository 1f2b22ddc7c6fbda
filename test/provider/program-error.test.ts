// A program's error in the package's words (a failed lookup's): its message alone, as Pulumi prints a RunError, and
// as the runtime writes it to its trace, which formats it with Node's colored util.inspect.
import { inspect, stripVTControlCharacters } from "node:util";
import * as pulumi from "@pulumi/pulumi";
import { expect, it } from "vitest";
import { programError } from "../../provider/runtime/resources/program-error.ts";

const MESSAGE = 'getCohort: no cohorts with name "Nobody"; names seen: "Leads"';

/** A lookup's failure as a program without the preload meets it: source-map-support points the runtime's frames at
 * sources that are not there, beside the scope's folder. */
function lookupFailure(): Error {
  const error = new Error(MESSAGE);
  error.stack = `Error: ${MESSAGE}\n    at lookupIn (file:///p/node_modules/pulumi-audience/provider/runtime/lifecycle/lookup.ts:49:13)\n    at applyHelperAsync (/p/node_modules/@pulumi/output.ts:519:25)`;
  return error;
}

it("is a RunError of the message alone, whatever error it stands for", () => {
  const error = programError(lookupFailure());
  expect(pulumi.RunError.isInstance(error)).toBe(true);
  expect([error.message, error.stack]).toEqual([MESSAGE, MESSAGE]);
  expect(programError(error)).toBe(error);
});

it("formats with the runtime's colored inspect as its message, without the failure's frames", () => {
  // Such frames in a cause kept Node 22's colored inspect busy for half a minute, then it threw RangeError.
  const error = programError(lookupFailure());
  expect(Object.hasOwn(error, "cause")).toBe(false);
  expect(stripVTControlCharacters(inspect(error, { colors: true }))).toBe(`[${MESSAGE}] {\n  __pulumiRunError: true\n}`);
});
