/**
 * Sets `key` as the newest entry of `map` (a Map keeps insertion order), dropping the oldest entry when `max` are
 * kept: a bound on what a process remembers, oldest (or least recently set) out first.
 */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value!);
  map.set(key, value);
}
