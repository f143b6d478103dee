import { formatOriginRule, maxOriginRuleLength, maxOriginRules, parseOriginRule } from './origins.js';

/** The body of create and change_settings (spec `APIKeySettings`, plus the optional `name`). */
export interface ApiKeySettings {
  name?: string;
  description?: string | null;
  user_agent?: string | null;
  origins?: string[];
}

export const limits = {
  name: 128,
  description: 1024,
  userAgent: 512,
  origins: maxOriginRules,
  origin: maxOriginRuleLength,
} as const;

/** JSON schema of `APIKeySettings`; the origin syntax is checked by `normalizeSettings`. */
export const apiKeySettingsSchema = {
  $id: 'APIKeySettings',
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: limits.name, description: 'Generated when not given' },
    description: { type: ['string', 'null'], maxLength: limits.description },
    user_agent: {
      type: ['string', 'null'],
      maxLength: limits.userAgent,
      description: 'When set, the User-Agent of a request must contain this text',
    },
    origins: {
      type: 'array',
      maxItems: limits.origins,
      items: { type: 'string', minLength: 1, maxLength: limits.origin },
      description: 'Allowed origins: example.com, *.example.com, optionally with scheme and port',
    },
  },
} as const;

/**
 * Checks what the schema cannot (origin syntax) and puts values in canonical form: origins
 * lower-cased and de-duplicated, an empty `user_agent` meaning no restriction.
 * Returns the message of the first problem instead when there is one.
 */
export function normalizeSettings(input: ApiKeySettings): ApiKeySettings | string {
  const out: ApiKeySettings = { ...input };
  if (input.origins !== undefined) {
    const canonical: string[] = [];
    for (const [index, text] of input.origins.entries()) {
      const rule = parseOriginRule(text);
      if (!rule) {
        return `origins[${index}] "${text}" is not a valid origin rule: use example.com or *.example.com, optionally with http(s):// and :port`;
      }
      const formatted = formatOriginRule(rule);
      if (!canonical.includes(formatted)) canonical.push(formatted);
    }
    out.origins = canonical;
  }
  if (input.user_agent === '') out.user_agent = null;
  if (input.name !== undefined && input.name.trim() === '') return 'name must not be blank';
  // PostgreSQL text cannot hold U+0000.
  for (const field of ['name', 'description', 'user_agent'] as const) {
    if (input[field]?.includes('\u0000')) return `${field} must not contain NUL characters`;
  }
  return out;
}
