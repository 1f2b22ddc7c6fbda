// Where a program declares a resource, as Pulumi's SDK records it (`sourcePosition`, which `audience drift --format
// github` annotates). The SDK (3.270) reads it from the constructor's stack with a pattern that takes only frames
// naming a function (`at f (file:1:2)`), so the top level of an ES module (`at file:///index.ts:3:20`), where
// programs declare their resources, is never read. The pattern is widened once to take both forms (a file whose
// path holds parentheses is not read); an SDK whose pattern is no longer this one is left as it is.
import * as pulumi from "@pulumi/pulumi";

const NAMED_FRAMES_ONLY = String.raw`^\s*at .* \((?<file>.*):(?<line>[0-9]+):(?<column>[0-9]+)\)$`;
const ANY_FRAME = /^\s*at (?:.* \()?(?<file>[^()\s][^()]*):(?<line>[0-9]+):(?<column>[0-9]+)\)?$/;

/** Where the SDK keeps its pattern: a private static of `Resource`. */
type FramePattern = { framePositionRegExp?: RegExp };

export function readTopLevelFrames(): void {
  const sdk = pulumi.Resource as unknown as FramePattern;
  if (sdk.framePositionRegExp?.source === NAMED_FRAMES_ONLY) sdk.framePositionRegExp = ANY_FRAME;
}
