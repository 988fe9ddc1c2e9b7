// What a costly function answered for the strings seen last: the hot path meets the same
// few User-Agent and Accept-Language headers again and again.

/**
 * `compute`, its answers remembered for the last `size` distinct keys, the oldest dropped
 * first (a Map iterates in insertion order: its first key is the oldest).
 */
export function remembered<V>(size: number, compute: (key: string) => V): (key: string) => V {
  const answers = new Map<string, V>();
  return (key) => {
    // One lookup on a hit; has() only for an answer that is itself undefined.
    const known = answers.get(key);
    if (known !== undefined || answers.has(key)) return known as V;
    const answer = compute(key);
    if (answers.size >= size) answers.delete(answers.keys().next().value as string);
    answers.set(key, answer);
    return answer;
  };
}
