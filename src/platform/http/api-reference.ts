/**
 * The API reference in Markdown, generated from the OpenAPI document that Fastify builds from the
 * route schemas: one section per tag, one entry per operation with its authentication, parameters,
 * request body and responses. `docs/api.md` is this function's output (`npm run docs:api`); a test
 * regenerates it and fails when the committed file is stale, so the reference never drifts from
 * the routes.
 */

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
};

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }>; headers?: Record<string, { description?: string; schema?: Schema }> }>;
  security?: Record<string, unknown>[];
}

export interface OpenApiDocument {
  info?: { title?: string; version?: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
  components?: {
    schemas?: Record<string, Schema>;
    securitySchemes?: Record<string, { description?: string; in?: string; name?: string }>;
  };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

/** Table cells hold no pipes or line breaks. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ').trim();
}

function anchor(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .trim()
    .replace(/ /g, '-');
}

function refName(ref: string): string {
  return ref.replace(/^#\/components\/schemas\//, '').replace(/#$/, '');
}

/** A schema in one line: its type with the constraints that matter to a caller. */
export function describeType(schema: Schema | undefined): string {
  if (!schema) return 'any';
  if (schema.$ref) return `[${refName(schema.$ref)}](#${anchor(`schema ${refName(schema.$ref)}`)})`;
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(' or ');
  const union = schema.oneOf ?? schema.anyOf;
  if (union) return union.map(describeType).join(' or ');
  if (schema.allOf) return 'object';
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  let text = types.length ? types.join(' or ') : 'any';
  if (types.includes('array')) text = `array of ${describeType(schema.items)}`;
  if (schema.nullable) text += ' or null';
  const limits: string[] = [];
  if (schema.format) limits.push(schema.format);
  if (schema.minimum !== undefined && schema.maximum !== undefined) limits.push(`${schema.minimum}..${schema.maximum}`);
  else if (schema.minimum !== undefined) limits.push(`≥ ${schema.minimum}`);
  else if (schema.maximum !== undefined) limits.push(`≤ ${schema.maximum}`);
  if (schema.maxLength !== undefined) limits.push(`${schema.minLength ?? 0}..${schema.maxLength} chars`);
  else if (schema.minLength) limits.push(`≥ ${schema.minLength} chars`);
  if (schema.maxItems !== undefined) limits.push(schema.minItems === schema.maxItems ? `${schema.maxItems} items` : `≤ ${schema.maxItems} items`);
  if (schema.pattern) limits.push(`pattern \`${schema.pattern.replace(/`/g, "'")}\``);
  return limits.length ? `${text} (${limits.join(', ')})` : text;
}

/** A field's description and default as sentences. */
function explain(description: string | undefined, schema: Schema | undefined): string {
  const text = (description ?? '').trim();
  const sentence = text && !/[.!?)]$/.test(text) ? `${text}.` : text;
  if (schema?.default === undefined) return sentence;
  return `${sentence} Default: \`${JSON.stringify(schema.default)}\`.`.trim();
}

/** An object schema with the parts of an `allOf` merged: their properties and required fields. */
function merged(schema: Schema, components: Record<string, Schema>): Schema | undefined {
  const target = schema.$ref ? components[refName(schema.$ref)] : schema;
  if (!target?.allOf) return target;
  const parts = target.allOf.map((part) => merged(part, components)).filter((part): part is Schema => part !== undefined);
  return {
    type: 'object',
    properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})) as Record<string, Schema>,
    required: parts.flatMap((part) => part.required ?? []),
  };
}

/**
 * The fields of an object schema as table rows; nested objects are flattened with dotted names,
 * the objects of an array with `name[].`.
 */
function fieldRows(schema: Schema, components: Record<string, Schema>, prefix = '', depth = 0): string[] {
  const target = merged(schema, components);
  if (!target?.properties || depth > 5) return [];
  const required = new Set(target.required ?? []);
  return Object.entries(target.properties).flatMap(([name, field]) => {
    const row = `| \`${prefix}${name}\` | ${cell(describeType(field))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(explain(field.description, field))} |`;
    const items = field.type === 'array' && field.items && !field.items.$ref ? merged(field.items, components) : undefined;
    const nested =
      field.type === 'object' && field.properties
        ? fieldRows(field, components, `${prefix}${name}.`, depth + 1)
        : items?.properties
          ? fieldRows(items, components, `${prefix}${name}[].`, depth + 1)
          : [];
    return [row, ...nested];
  });
}

function authentication(operation: Operation, doc: OpenApiDocument): string {
  const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (schemes.length === 0) return 'none';
  return schemes
    .map((name) => {
      const scheme = doc.components?.securitySchemes?.[name];
      return scheme?.description ? `${name}: ${scheme.description}` : name;
    })
    .join('; ');
}

function operationSection(method: string, path: string, operation: Operation, doc: OpenApiDocument): string[] {
  const components = doc.components?.schemas ?? {};
  const lines = [`### \`${method.toUpperCase()} ${path}\``, ''];
  if (operation.summary) lines.push(`**${operation.summary.trim()}.**`.replace(/\.\.\*\*$/, '.**'), '');
  if (operation.description) lines.push(operation.description.trim(), '');
  lines.push(`Authentication: ${authentication(operation, doc)}.`, '');
  const parameters = operation.parameters ?? [];
  if (parameters.length) {
    lines.push('| Parameter | In | Type | Required | Description |', '|---|---|---|---|---|');
    for (const p of parameters) {
      lines.push(`| \`${p.name}\` | ${p.in} | ${cell(describeType(p.schema))} | ${p.required ? 'yes' : 'no'} | ${cell(explain(p.description ?? p.schema?.description, p.schema))} |`);
    }
    lines.push('');
  }
  for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
    lines.push(`Request body (\`${type}\`):`, '');
    const rows = media.schema ? fieldRows(media.schema, components) : [];
    if (rows.length) lines.push('| Field | Type | Required | Description |', '|---|---|---|---|', ...rows, '');
    else lines.push(describeType(media.schema), '');
  }
  const responses = Object.entries(operation.responses ?? {});
  if (responses.length) {
    lines.push('| Status | Content | Description |', '|---|---|---|');
    for (const [status, response] of responses) {
      const content = Object.entries(response.content ?? {})
        .map(([type, media]) => `\`${type}\`${media.schema ? `: ${describeType(media.schema)}` : ''}`)
        .join('; ');
      lines.push(`| ${status} | ${cell(content || '—')} | ${cell(response.description ?? '')} |`);
    }
    lines.push('');
    // Response headers, each once with the statuses that carry it.
    const headers = new Map<string, { description: string; statuses: string[] }>();
    for (const [status, response] of responses) {
      for (const [name, header] of Object.entries(response.headers ?? {})) {
        const seen = headers.get(name) ?? { description: header.description ?? describeType(header.schema), statuses: [] };
        seen.statuses.push(status);
        headers.set(name, seen);
      }
    }
    if (headers.size) {
      lines.push('| Response header | Statuses | Description |', '|---|---|---|');
      for (const [name, { description, statuses }] of headers) lines.push(`| \`${name}\` | ${statuses.join(', ')} | ${cell(description)} |`);
      lines.push('');
    }
    // The fields of each JSON body the operation declares itself (shared bodies have their own section).
    const bodies = responses.flatMap(([status, response]) => {
      const schema = response.content?.['application/json']?.schema;
      const rows = schema && !schema.$ref ? fieldRows(schema, components) : [];
      return rows.length ? [{ status, rows }] : [];
    });
    for (const { status, rows } of bodies) {
      lines.push(bodies.length > 1 ? `Response fields (${status}):` : 'Response fields:', '', '| Field | Type | Required | Description |', '|---|---|---|---|', ...rows, '');
    }
  }
  return lines;
}

/** The whole reference: contents, one section per tag (in order of first use), then shared schemas. */
export function renderApiReference(doc: OpenApiDocument): string {
  const byTag = new Map<string, [string, string, Operation][]>();
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = methods[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push([method, path, operation]);
    }
  }
  const title = doc.info?.title ?? 'API';
  const lines = [
    `# ${title} reference`,
    '',
    `Version ${doc.info?.version ?? '?'}. Generated from the OpenAPI document that the server serves at \`/openapi.json\` (itself generated from the route schemas) by \`npm run docs:api\`: do not edit by hand.`,
    '',
  ];
  if (doc.info?.description) lines.push(doc.info.description, '');
  lines.push('Every error has the body `{"errors": [{"message": "…"}]}`.', '', '## Contents', '');
  for (const [tag, operations] of byTag) {
    lines.push(`- [${tag}](#${anchor(tag)})`);
    for (const [method, path] of operations) lines.push(`  - [\`${method.toUpperCase()} ${path}\`](#${anchor(`${method} ${path}`)})`);
  }
  lines.push('');
  for (const [tag, operations] of byTag) {
    lines.push(`## ${tag}`, '');
    for (const [method, path, operation] of operations) lines.push(...operationSection(method, path, operation, doc));
  }
  const schemas = Object.entries(doc.components?.schemas ?? {});
  if (schemas.length) {
    lines.push('## Schemas', '');
    for (const [name, schema] of schemas) {
      lines.push(`### Schema ${name}`, '');
      if (schema.description) lines.push(schema.description, '');
      const rows = fieldRows(schema, doc.components?.schemas ?? {});
      if (rows.length) lines.push('| Field | Type | Required | Description |', '|---|---|---|---|', ...rows, '');
      else lines.push(describeType(schema), '');
    }
  }
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
