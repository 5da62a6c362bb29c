/**
 * The interpreter: walks a trie for one lookup. It serves where generated
 * code cannot (see `codegen.ts`) and is the reference the compiled matcher
 * is tested against.
 *
 * @module
 */

import type { Match, Node, PrefixIndex, Tail } from "./trie.ts";
import { decode, paramsFactory } from "./trie.ts";

/** `path.startsWith(text, at)` without a builtin call, for short segments. */
function sameText(path: string, at: number, text: string): boolean {
  for (let i = 1; i < text.length; i++) {
    if (path.charCodeAt(at + i) !== text.charCodeAt(i)) return false;
  }
  return true;
}

/** Captures of the running search; matching is synchronous, so one array serves all. */
const scratch: string[] = [];

/**
 * Depth-first search from `node` with the path position at `pos` (a "/"
 * or the end); `scratch[0..depth)` holds the decoded captures so far.
 * Order: static child, empty segment, mixed segments (most static text
 * first), wildcards with static text before the `*`, bare parameter, then
 * bare wildcards.
 */
export function search<T>(
  node: Node<T>,
  path: string,
  pos: number,
  depth: number,
): Match<T> | undefined {
  const length = path.length;
  if (pos === length) {
    const entry = node.entries[0];
    return entry === undefined ? undefined : {
      value: entry.value,
      params: (entry.build ??= paramsFactory(entry.names))(scratch),
    };
  }
  if (path.charCodeAt(pos) !== 47 /* "/" */) return undefined;
  const statics = node.statics;
  const staticMap = node.staticMap;
  if (staticMap !== undefined) {
    let end = path.indexOf("/", pos + 1);
    if (end === -1) end = length;
    // A segment longer than every key is not hashed (V8 hashes strings over
    // 16,383 characters by length alone: long ones all collide).
    const child = end - pos - 1 > node.staticLongest
      ? undefined
      : staticMap.get(path.slice(pos + 1, end));
    if (child !== undefined) {
      const found = search(child.node, path, end, depth);
      if (found !== undefined) return found;
    }
  } else if (statics !== undefined) {
    const bucket = statics[path.charCodeAt(pos + 1)];
    if (bucket !== undefined) {
      for (let i = 0; i < bucket.length; i++) {
        const text = bucket[i].text;
        const end = pos + 1 + text.length;
        if (
          (end === length || path.charCodeAt(end) === 47) &&
          sameText(path, pos + 1, text)
        ) {
          const found = search(bucket[i].node, path, end, depth);
          if (found !== undefined) return found;
          break; // no other static child can match this segment
        }
      }
    }
  }
  if (
    node.empty !== undefined &&
    (pos + 1 === length || path.charCodeAt(pos + 1) === 47)
  ) {
    const found = search(node.empty, path, pos + 1, depth);
    if (found !== undefined) return found;
  }
  const segments = node.segments;
  const param = node.param;
  if (segments.length > 0 || param !== undefined) {
    let end = path.indexOf("/", pos + 1);
    if (end === -1) end = length;
    if (end > pos + 1) {
      const picked = node.segmentIndex?.candidates(path, pos + 1, end, end);
      const count = picked === undefined ? segments.length : picked.length;
      for (let i = 0; i < count; i++) {
        const s = picked === undefined ? i : picked[i];
        const match = segments[s].regex.exec(path.slice(pos + 1, end));
        if (match === null) continue;
        const found = capture(match, depth)
          ? search(segments[s].node, path, end, depth + match.length - 1)
          : undefined;
        if (found !== undefined) return found;
      }
      const prefixed = node.prefixedTails.length > 0
        ? searchTails(node.prefixedTails, node.prefixedIndex, path, pos, depth)
        : undefined;
      if (prefixed !== undefined) return prefixed;
      if (param !== undefined) {
        const raw = path.slice(pos + 1, end);
        const value = raw.indexOf("%") === -1 ? raw : decode(raw);
        if (value !== undefined) {
          scratch[depth] = value;
          const found = search(param, path, end, depth + 1);
          if (found !== undefined) return found;
        }
      }
      return node.tails.length > 0
        ? searchTails(node.tails, node.tailIndex, path, pos, depth)
        : undefined;
    }
  }
  if (node.prefixedTails.length > 0) {
    const found = searchTails(
      node.prefixedTails,
      node.prefixedIndex,
      path,
      pos,
      depth,
    );
    if (found !== undefined) return found;
  }
  return node.tails.length > 0
    ? searchTails(node.tails, node.tailIndex, path, pos, depth)
    : undefined;
}

/** Decodes a match's groups into `scratch` from `depth`; false on a malformed escape. */
function capture(match: ArrayLike<string>, depth: number): boolean {
  for (let i = 1; i < match.length; i++) {
    const value = decode(match[i]);
    if (value === undefined) return false;
    scratch[depth + i - 1] = value;
  }
  return true;
}

function searchTails<T>(
  tails: Tail<T>[],
  index: PrefixIndex | undefined,
  path: string,
  pos: number,
  depth: number,
): Match<T> | undefined {
  const rest = path.slice(pos);
  let end = index === undefined ? -1 : path.indexOf("/", pos + 1);
  if (end === -1) end = path.length;
  const picked = index?.candidates(path, pos + 1, end, path.length);
  const count = picked === undefined ? tails.length : picked.length;
  for (let i = 0; i < count; i++) {
    const t = picked === undefined ? i : picked[i];
    const match = tails[t].regex.exec(rest);
    if (match === null || !capture(match, depth)) continue;
    const entry = tails[t].entries[0];
    return {
      value: entry.value,
      params: (entry.build ??= paramsFactory(entry.names))(scratch),
    };
  }
  return undefined;
}
