import { domainToASCII } from "node:url";

/**
 * A domain as the policy tables keep it: lower-case, IDNs as punycode, no
 * trailing dot, no port. Null when the input is not a domain name.
 */
export function normalizeDomain(input: string): string | null {
  const trimmed = input.trim().toLowerCase().replace(/\.$/, "");
  if (trimmed === "" || trimmed.length > 253 || /[\s/@?#:\\]/.test(trimmed)) return null;
  const ascii = domainToASCII(trimmed);
  if (!ascii) return null;
  const labels = ascii.split(".");
  if (labels.some((label) => label.length === 0 || label.length > 63 || !/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/.test(label))) return null;
  return ascii;
}

/** The host without its port, lower-cased. */
export function hostWithoutPort(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith("[")) return lower.slice(0, lower.indexOf("]") + 1);
  const colon = lower.lastIndexOf(":");
  return colon > 0 && lower.indexOf(":") === colon ? lower.slice(0, colon) : lower;
}

/** The domain and every parent domain, most specific first: a.b.example -> a.b.example, b.example, example. */
export function domainAndParents(domain: string): string[] {
  const labels = domain.split(".");
  return labels.map((_, index) => labels.slice(index).join("."));
}
