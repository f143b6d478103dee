/**
 * Route types derived from route schemas. A route declared with TypeBox schemas (plain JSON schemas
 * at run time, so validation and the OpenAPI document read them as before) gets its request's types
 * from them through Fastify's type provider: a route's shape is written once, schema → type →
 * validation → OpenAPI. `app.withTypeProvider<TypeBoxTypeProvider>().get(…)` uses it; this is what
 * npm's @fastify/type-provider-typebox provides, in a few lines.
 */

import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import type { FastifyTypeProvider } from 'fastify';

export interface TypeBoxTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
}

/**
 * A property with a `default`: left out of `required`, since a request may omit it, yet typed as
 * present, since validation fills it in (the server's Ajv runs with `useDefaults`).
 */
export function defaulted<T extends TSchema>(schema: T): T {
  return Type.Optional(schema) as unknown as T;
}

/**
 * A schema that also takes null, written as JSON schema's list of types (`type: ['string', 'null']`)
 * as the OpenAPI document has always shown such values, rather than TypeBox's `anyOf` with null.
 */
export function nullable<T extends TSchema & { type: string }>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });
}
