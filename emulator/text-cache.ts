// The JSON texts of stored documents answered lately, so a document read again is not written as JSON again. A
// stored document never changes in place (a save stores a new one), so its text stays true while it is stored.
// The texts are bounded: at 100,000 documents, keeping every one answered would hold their whole text twice.

/**
 * How many characters of text are kept at most (about 4,000 documents of a typical size). Small on purpose: a text
 * kept longer than a few young-generation collections moves to the old one, so a read of more documents than the
 * bound (a drift scan) would leave every text it made there as garbage until a full collection (100,000 documents
 * answered: +60 MB RSS with 16 MiB kept, +28 MB with 2 MiB).
 */
export const TEXT_CACHE_CHARS = 2 * 1024 * 1024;

export class TextCache {
  /** document -> its text, the least recently answered first. */
  readonly #texts = new Map<object, string>();
  #chars = 0;
  readonly #limit: number;

  constructor(limit = TEXT_CACHE_CHARS) {
    this.#limit = limit;
  }

  /** The document's JSON text, kept for the next time. */
  textOf(doc: object): string {
    let text = this.#texts.get(doc);
    if (text !== undefined) {
      // Moved to the end: the most recently answered.
      this.#texts.delete(doc);
      this.#texts.set(doc, text);
      return text;
    }
    text = JSON.stringify(doc);
    this.#texts.set(doc, text);
    this.#chars += text.length;
    for (const [oldest, kept] of this.#texts) {
      if (this.#chars <= this.#limit) break;
      this.#texts.delete(oldest);
      this.#chars -= kept.length;
    }
    return text;
  }

  /** Drops a document's text: it was replaced or removed, and is not answered again. */
  forget(doc: object): void {
    const text = this.#texts.get(doc);
    if (text === undefined) return;
    this.#texts.delete(doc);
    this.#chars -= text.length;
  }

  /** Characters of text kept now. */
  get chars(): number {
    return this.#chars;
  }

  /** Whether the document's text is kept. */
  has(doc: object): boolean {
    return this.#texts.has(doc);
  }
}
