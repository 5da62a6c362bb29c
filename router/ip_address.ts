/**
 * IP address parsing shared by the router's `trustProxy` and the rate
 * limiter's default key. Not a public export of the package.
 *
 * @module
 */

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Four numbers of an IPv4 address, or `undefined`. */
function parseIpv4(text: string): number[] | undefined {
  const match = IPV4.exec(text);
  if (match === null) return undefined;
  const parts = [+match[1], +match[2], +match[3], +match[4]];
  // Leading zeros are refused: some parsers read them as octal.
  for (let i = 0; i < 4; i++) {
    if (
      parts[i] > 255 || (match[i + 1].length > 1 && match[i + 1][0] === "0")
    ) {
      return undefined;
    }
  }
  return parts;
}

/**
 * An address as eight 16-bit groups (IPv4 as IPv4-mapped IPv6,
 * `::ffff:a.b.c.d`), or `undefined` when `text` is not an address.
 * A zone (`fe80::1%eth0`) is dropped.
 */
export function parseIp(text: string): Uint16Array | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) {
    const groups = new Uint16Array(8);
    groups[5] = 0xffff;
    groups[6] = (v4[0] << 8) | v4[1];
    groups[7] = (v4[2] << 8) | v4[3];
    return groups;
  }
  const zone = text.indexOf("%");
  if (zone !== -1) text = text.slice(0, zone);
  if (!text.includes(":") || text.length > 45) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] === "" ? [] : halves[0].split(":");
  const tail = halves.length === 1 || halves[1] === ""
    ? []
    : halves[1].split(":");
  // An embedded IPv4 address at the end (::ffff:192.0.2.1) counts as two groups.
  const last = tail.length > 0 ? tail : head;
  let embedded: number[] | undefined;
  if (last.length > 0 && last[last.length - 1].includes(".")) {
    embedded = parseIpv4(last.pop()!);
    if (embedded === undefined) return undefined;
  }
  const count = head.length + tail.length + (embedded ? 2 : 0);
  if (halves.length === 1 ? count !== 8 : count > 7) return undefined;
  const groups = new Uint16Array(8);
  let i = 0;
  for (const group of head) {
    if (!HEX_GROUP.test(group)) return undefined;
    groups[i++] = parseInt(group, 16);
  }
  i = 8 - tail.length - (embedded ? 2 : 0);
  for (const group of tail) {
    if (!HEX_GROUP.test(group)) return undefined;
    groups[i++] = parseInt(group, 16);
  }
  if (embedded) {
    groups[6] = (embedded[0] << 8) | embedded[1];
    groups[7] = (embedded[2] << 8) | embedded[3];
  }
  return groups;
}

/** Whether parsed groups are an IPv4(-mapped) address. */
export function isIpv4(groups: Uint16Array): boolean {
  return groups[0] === 0 && groups[1] === 0 && groups[2] === 0 &&
    groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff;
}

/** A network: an address and how many leading bits must match (0-128). */
export interface Network {
  groups: Uint16Array;
  bits: number;
}

/**
 * Parses `"10.0.0.0/8"`, `"fd00::/8"` or a single address; the prefix of
 * an IPv4 network counts IPv4 bits (it is stored as mapped IPv6).
 */
export function parseNetwork(text: string): Network | undefined {
  const slash = text.indexOf("/");
  const groups = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (groups === undefined) return undefined;
  const v4 = isIpv4(groups);
  const max = v4 ? 32 : 128;
  let bits = max;
  if (slash !== -1) {
    const digits = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(digits) || +digits > max) return undefined;
    bits = +digits;
  }
  return { groups, bits: v4 ? bits + 96 : bits };
}

/** Whether `groups` lies in `network`. */
export function inNetwork(groups: Uint16Array, network: Network): boolean {
  let bits = network.bits;
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((groups[i] & mask) !== (network.groups[i] & mask)) return false;
  }
  return true;
}

/** The address in its usual text form (IPv4 dotted, IPv6 compressed). */
export function formatIp(groups: Uint16Array): string {
  if (isIpv4(groups)) {
    return `${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${
      groups[7] & 255
    }`;
  }
  // The longest run of two or more zero groups becomes "::" (RFC 5952).
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = Array.from(groups, (group) => group.toString(16));
  if (bestStart === -1) return hex.join(":");
  return hex.slice(0, bestStart).join(":") + "::" +
    hex.slice(bestStart + bestLength).join(":");
}
