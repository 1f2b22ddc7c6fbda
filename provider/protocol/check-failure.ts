// A check failure as the Pulumi CLI prints it. The CLI shows a failure's property beside the input of that name
// (`property minCount value {-1} has a problem: …`), which a nested path is not (`value {<nil>}`) and which for a
// list or an object is Go's dump of it (`value {map[cohortIds:{[]}]}`): such a failure is handed over as the
// resource's, its reason naming the path.

export function shownFailure<F extends { property: string; reason: string }>(failure: F, inputs: Record<string, unknown> = {}): F {
  const value = inputs[failure.property];
  if (!/[.[]/.test(failure.property) && (typeof value !== "object" || value === null)) return failure;
  const reason = names(failure.reason, failure.property) ? failure.reason : `${failure.property}: ${failure.reason}`;
  return { ...failure, property: "", reason };
}

/** Whether a reason names the path already (`audience:apiKey is missing`), not only its word ("payload element"). */
function names(reason: string, path: string): boolean {
  if (/[.[]/.test(path)) return reason.includes(path);
  return reason.startsWith(`${path} `) || reason.startsWith(`${path}:`) || reason.includes(`:${path}`);
}
