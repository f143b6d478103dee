/** Where sources and the registry report problems; a pino logger fits. */
export interface Log {
  warn(message: string): void;
  error(message: string): void;
}

export const silentLog: Log = { warn() {}, error() {} };
