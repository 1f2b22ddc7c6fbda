// The member a mistyped name most likely meant, for a check's "did you mean".

/** The edit distance between two names (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The member a mistyped top-level name most likely meant (a few edits away, case ignored), or undefined. */
export function closestMember(written: string, members: readonly string[]): string | undefined {
  if (/[.[]/.test(written)) return undefined;
  const lower = written.toLowerCase();
  const scored = members.map((m) => ({ m, d: distance(lower, m.toLowerCase()) })).sort((x, y) => x.d - y.d);
  const best = scored[0];
  return best && best.d <= Math.max(2, Math.floor(written.length / 4)) ? best.m : undefined;
}
