import type { Migration } from './migrate.js';

export const platformMigrations: Migration[] = [
  {
    version: 1,
    name: 'platform settings',
    sql: `CREATE TABLE meridian_settings (name text PRIMARY KEY, value text NOT NULL)`,
  },
];
