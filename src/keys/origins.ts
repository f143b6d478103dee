/**
 * Origin rules of an API key. A rule is a host name (`example.com`), or a wildcard for its
 * subdomains (`*.example.com`, which does not match `example.com` itself), optionally with a
 * scheme (`https://example.com`) and a port (`example.com:8080`). A rule without a scheme matches
 * http and https; a rule without a port matches any port.
 */
export interface OriginRule {
  scheme: 'http' | 'https' | null;
  /** Lower-case host; for a wildcard rule, the part after `*.`. */
  host: string;
  wildcard: boolean;
  port: number | null;
}

const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const ruleSyntax = new RegExp(`^(?:(https?)://)?(\\*\\.)?(${label}(?:\\.${label})*)(?::(\\d{1,5}))?$`);

export const maxOriginRules = 100;
export const maxOriginRuleLength = 300;

/** Parses one rule, or returns null when it is malformed. */
export function parseOriginRule(text: string): OriginRule | null {
  const match = ruleSyntax.exec(text.trim().toLowerCase());
  if (!match) return null;
  const [, scheme, star, host, port] = match;
  if (host!.length > 253) return null;
  const portNumber = port === undefined ? null : Number(port);
  if (portNumber !== null && (portNumber < 1 || portNumber > 65535)) return null;
  return { scheme: (scheme as 'http' | 'https' | undefined) ?? null, host: host!, wildcard: star !== undefined, port: portNumber };
}

/** The canonical spelling of a rule, as stored and returned. */
export function formatOriginRule(rule: OriginRule): string {
  return `${rule.scheme ? `${rule.scheme}://` : ''}${rule.wildcard ? '*.' : ''}${rule.host}${rule.port ? `:${rule.port}` : ''}`;
}

interface RequestOrigin {
  scheme: string;
  host: string;
  port: number;
}

const defaultPorts: Record<string, number> = { http: 80, https: 443 };

/** The origin of an `Origin` or `Referer` header value, or null when it has none (`null`, garbage). */
export function requestOrigin(header: string | undefined): RequestOrigin | null {
  if (!header || header === 'null') return null;
  let url: URL;
  try {
    url = new URL(header);
  } catch {
    return null;
  }
  const scheme = url.protocol.slice(0, -1);
  if (!url.hostname) return null;
  const port = url.port ? Number(url.port) : (defaultPorts[scheme] ?? 0);
  return { scheme, host: url.hostname.toLowerCase(), port };
}

export function ruleMatches(rule: OriginRule, origin: RequestOrigin): boolean {
  if (rule.scheme !== null && rule.scheme !== origin.scheme) return false;
  if (rule.scheme === null && origin.scheme !== 'http' && origin.scheme !== 'https') return false;
  if (rule.port !== null && rule.port !== origin.port) return false;
  if (!rule.wildcard) return origin.host === rule.host;
  return origin.host.length > rule.host.length + 1 && origin.host.endsWith(`.${rule.host}`);
}

/**
 * Whether a request may use a key with these rules: always when there are none; otherwise its
 * `Origin`, or its `Referer` when the Origin is absent or `null`, must match one of them. An
 * Origin that is not a URL (an empty one too) is refused, not passed over for a Referer the
 * client also chose.
 */
export function originAllowed(rules: readonly OriginRule[], origin: string | undefined, referer: string | undefined): boolean {
  if (rules.length === 0) return true;
  const from = origin !== undefined && origin !== 'null' ? requestOrigin(origin) : requestOrigin(referer);
  if (!from) return false;
  return rules.some((rule) => ruleMatches(rule, from));
}
