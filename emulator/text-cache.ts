// The JSON text of each stored document, made the first time it is answered and kept until the document is replaced
// or removed: a stored document never changes in place (a save stores a new one), so its text stays true while it
// is stored, and a list of documents is joined from their texts instead of writing each as JSON again.
// Memory: about the text's length per document answered (about 0.5 KB a cohort; at 100,000 answered, see the
// emulator's RSS rows in bench/emulator.ts and docs/performance.md).

export class TextCache {
  /** document -> its text. */
  readonly #texts = new Map<object, string>();
  #chars = 0;

  /** The document's JSON text, kept for the next time. */
  textOf(doc: object): string {
    let text = this.#texts.get(doc);
    if (text === undefined) {
      text = JSON.stringify(doc);
      this.#texts.set(doc, text);
      this.#chars += text.length;
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
