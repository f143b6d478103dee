/**
 * @oneDatabase the database only checks the key; what is tested is the API reference generated from the route schemas.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { apiReference, apiReferencePath } from '../../../src/cli/api-reference.js';
import { describeType, renderApiReference, type OpenApiDocument } from '../../../src/platform/http/api-reference.js';

const doc: OpenApiDocument = {
  info: { title: 'Example API', version: '1.2.3' },
  paths: {
    '/things/{id}': {
      post: {
        summary: 'Change a thing',
        tags: ['things'],
        security: [{ token: [] }],
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: 36 } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 50, default: 10 }, description: 'Page size' },
        ],
        requestBody: {
          content: {
            'application/json': {
              schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', description: 'A | name' }, tags: { type: 'array', items: { type: 'string' } } } },
            },
          },
        },
        responses: {
          '200': {
            description: 'Changed',
            content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } },
            headers: { 'RateLimit-Remaining': { description: 'Requests left', schema: { type: 'integer' } } },
          },
          '400': { description: 'Bad input', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } },
        },
      },
    },
    '/health': { get: { summary: 'Liveness', responses: { '200': { description: 'OK' } } } },
  },
  components: {
    schemas: { ErrorBody: { type: 'object', properties: { errors: { type: 'array' } } } },
    securitySchemes: { token: { description: 'A service token' } },
  },
};

test('each operation is listed under its tag with authentication, parameters, body fields and responses', () => {
  const md = renderApiReference(doc);
  assert.match(md, /^# Example API reference\n/);
  assert.match(md, /## things\n\n### `POST \/things\/\{id\}`\n\n\*\*Change a thing\.\*\*/);
  assert.match(md, /Authentication: token: A service token\./);
  assert.match(md, /\| `limit` \| query \| integer \(1\.\.50\) \| no \| Page size\. Default: `10`\. \|/);
  assert.match(md, /\| `id` \| path \| string \(0\.\.36 chars\) \| yes \|/);
  // A pipe inside a description cannot break the table.
  assert.match(md, /\| `name` \| string \| yes \| A \\\| name\. \|/);
  assert.match(md, /\| `tags` \| array of string \| no \|/);
  assert.match(md, /\| 400 \| `application\/json`: \[ErrorBody\]\(#schema-errorbody\) \| Bad input \|/);
  assert.match(md, /Response fields:[\s\S]*\| `id` \| string \| no \|/);
  // Response headers, with the statuses that carry them.
  assert.match(md, /\| Response header \| Statuses \| Description \|\n\|---\|---\|---\|\n\| `RateLimit-Remaining` \| 200 \| Requests left \|/);
  // Operations without a tag are gathered at the end, before the schemas.
  assert.ok(md.indexOf('## Other') > md.indexOf('## things') && md.indexOf('### Schema ErrorBody') > md.indexOf('## Other'));
  assert.match(md, /Authentication: none\./);
});

test('response fields reach into arrays of objects and allOf parts, and each status with a body of its own has its table', () => {
  const md = renderApiReference({
    paths: {
      '/catalog': {
        get: {
          responses: {
            '200': {
              description: 'The catalog',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['items'],
                    properties: {
                      items: {
                        type: 'array',
                        items: {
                          allOf: [
                            { type: 'object', required: ['name'], properties: { name: { type: 'string' }, size: { type: 'object', properties: { bytes: { type: 'integer' } } } } },
                            { type: 'object', properties: { frames: { type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } } } } },
                          ],
                        },
                      },
                    },
                  },
                },
              },
            },
            '503': { description: 'Down', content: { 'application/json': { schema: { type: 'object', properties: { status: { enum: ['unavailable'] } } } } } },
          },
        },
      },
    },
  });
  assert.match(md, /Response fields \(200\):\n\n.*\n.*\n\| `items` \| array of object \| yes \|/);
  assert.match(md, /\| `items\[\]\.name` \| string \| yes \|/);
  assert.match(md, /\| `items\[\]\.size\.bytes` \| integer \| no \|/);
  assert.match(md, /\| `items\[\]\.frames\[\]\.id` \| string \(uuid\) \| yes \|/);
  assert.match(md, /Response fields \(503\):\n\n.*\n.*\n\| `status` \| `"unavailable"` \| no \|/);
});

test('types name their limits and enumerations in one line', () => {
  assert.equal(describeType({ type: 'string', enum: undefined, format: 'uuid' }), 'string (uuid)');
  assert.equal(describeType({ enum: ['png', 'webp'] }), '`"png"` or `"webp"`');
  assert.equal(describeType({ type: 'array', items: { type: 'integer', minimum: 0 } }), 'array of integer (≥ 0)');
  assert.equal(describeType(undefined), 'any');
});

test('docs/api.md is the reference generated from the current routes (run `npm run docs:api` after changing a route)', async () => {
  assert.equal(readFileSync(apiReferencePath, 'utf8'), await apiReference());
});
