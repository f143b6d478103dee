import { Lru } from '../lru.js';

/**
 * Files kept open between requests (archives, grids), opened when first asked for; the least
 * recently used are closed past `max`. A file that cannot be opened (removed by retention, never
 * written) is null and not remembered, so the next request looks again.
 */
export class OpenFiles<T extends { close(): unknown }> {
  private readonly open: Lru<string, Promise<T | null>>;

  constructor(
    private readonly openFile: (file: string) => Promise<T>,
    max: number,
    /** Hears of every lookup: whether the file was open already. */
    private readonly onLookup: (open: boolean) => void = () => {},
  ) {
    this.open = new Lru(max, { onEvict: (file) => void file.then((opened) => opened?.close()) });
  }

  get size(): number {
    return this.open.size;
  }

  get(file: string): Promise<T | null> {
    const cached = this.open.get(file);
    this.onLookup(cached !== undefined);
    if (cached) return cached;
    const opening = this.openFile(file).catch(() => null);
    this.open.set(file, opening);
    void opening.then((opened) => {
      if (!opened) this.open.delete(file);
    });
    return opening;
  }

  async close(): Promise<void> {
    const all = this.open.values();
    this.open.clear();
    await Promise.all(all.map(async (file) => (await file)?.close()));
  }
}
