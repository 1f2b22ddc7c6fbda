// A check failure as the Pulumi CLI prints it. The CLI shows a failure's property beside the input of that name
// (`property minCount value {-1} has a problem: …`), which a nested path is not (`value {<nil>}`): a nested one is
// handed over as the resource's, its reason naming the path.

export function shownFailure<F extends { property: string; reason: string }>(failure: F): F {
  if (!/[.[]/.test(failure.property)) return failure;
  const reason = failure.reason.includes(failure.property) ? failure.reason : `${failure.property}: ${failure.reason}`;
  return { ...failure, property: "", reason };
}
