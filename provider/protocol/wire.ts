// Protobuf bytes straight to and from JavaScript values, without google-protobuf's message objects, for the
// messages every registration carries: google.protobuf.Struct (a resource's inputs and outputs; a Value message per
// member, built and walked again, was most of what the monitor spent per answer) and the fields a decoder names.
// Values and failures are those of google-protobuf's `Struct.fromJavaScript`/`toJavaScript`, and the bytes written
// are the ones it writes; a member named `__proto__` is read as a member, not as the object's prototype.

import { setMember } from "./values.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;
const WIRE_FIXED32 = 5;

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

function unexpected(v: unknown): Error {
  return new Error(`Unexpected struct type: ${typeof v}`);
}

/**
 * Sizes first, bytes second: `sizes` holds, in the order the writer meets them, the length of every nested message
 * and string, so each is measured once.
 */
class Encoder {
  readonly sizes: number[] = [];

  /** Bytes of a Value message holding `v` (without its own tag and length). */
  value(v: unknown): number {
    switch (typeof v) {
      case "number":
        return 9;
      case "boolean":
        return 2;
      case "string":
        return 1 + this.text(v);
      case "object": {
        if (v === null) return 2;
        const at = this.sizes.push(0) - 1;
        const n = Array.isArray(v) ? this.list(v) : this.struct(v as Record<string, unknown>);
        this.sizes[at] = n;
        return 1 + varintSize(n) + n;
      }
      default:
        throw unexpected(v);
    }
  }

  /** Bytes of a string's length and UTF-8 (without its tag). */
  text(s: string): number {
    const n = Buffer.byteLength(s);
    this.sizes.push(n);
    return varintSize(n) + n;
  }

  /** Bytes of a ListValue. */
  list(values: readonly unknown[]): number {
    let size = 0;
    for (const v of values) {
      const at = this.sizes.push(0) - 1;
      const n = this.value(v);
      this.sizes[at] = n;
      size += 1 + varintSize(n) + n;
    }
    return size;
  }

  /** Bytes of a Struct: one map entry (key 1, value 2) per member. */
  struct(fields: Record<string, unknown>): number {
    let size = 0;
    for (const key of Object.keys(fields).sort()) {
      const entryAt = this.sizes.push(0) - 1;
      const k = this.text(key);
      const valueAt = this.sizes.push(0) - 1;
      const n = this.value(fields[key]);
      this.sizes[valueAt] = n;
      const entry = 1 + k + 1 + varintSize(n) + n;
      this.sizes[entryAt] = entry;
      size += 1 + varintSize(entry) + entry;
    }
    return size;
  }
}

class Writer {
  readonly buf: Buffer;
  readonly sizes: readonly number[];
  pos = 0;
  next = 0;
  constructor(buf: Buffer, sizes: readonly number[]) {
    this.buf = buf;
    this.sizes = sizes;
  }

  byte(b: number): void {
    this.buf[this.pos++] = b;
  }

  varint(n: number): void {
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  string(field: number, s: string): void {
    const n = this.sizes[this.next++]!;
    this.varint((field << 3) | WIRE_BYTES);
    this.varint(n);
    this.pos += this.buf.write(s, this.pos, n, "utf8");
  }

  value(v: unknown): void {
    switch (typeof v) {
      case "number":
        this.byte((2 << 3) | WIRE_FIXED64);
        this.pos = this.buf.writeDoubleLE(v, this.pos);
        return;
      case "boolean":
        this.byte((4 << 3) | WIRE_VARINT);
        this.byte(v ? 1 : 0);
        return;
      case "string":
        this.string(3, v);
        return;
      default: {
        if (v === null) {
          this.byte((1 << 3) | WIRE_VARINT);
          this.byte(0);
          return;
        }
        const n = this.sizes[this.next++]!;
        if (Array.isArray(v)) {
          this.byte((6 << 3) | WIRE_BYTES);
          this.varint(n);
          this.list(v);
        } else {
          this.byte((5 << 3) | WIRE_BYTES);
          this.varint(n);
          this.struct(v as Record<string, unknown>);
        }
      }
    }
  }

  list(values: readonly unknown[]): void {
    for (const v of values) {
      this.byte((1 << 3) | WIRE_BYTES);
      this.varint(this.sizes[this.next++]!);
      this.value(v);
    }
  }

  struct(fields: Record<string, unknown>): void {
    for (const key of Object.keys(fields).sort()) {
      this.byte((1 << 3) | WIRE_BYTES);
      this.varint(this.sizes[this.next++]!);
      this.string(1, key);
      this.byte((2 << 3) | WIRE_BYTES);
      this.varint(this.sizes[this.next++]!);
      this.value(fields[key]);
    }
  }
}

/** One field of a message to write: its number and its string, bool or Struct. */
export type MessageField = { field: number; string: string } | { field: number; bool: boolean } | { field: number; struct: Record<string, unknown> };

/** A message of string, bool and Struct fields, in the order given; "" and false are left out, as protobuf does. */
export function encodeMessage(fields: readonly MessageField[]): Buffer {
  const encoder = new Encoder();
  let size = 0;
  for (const f of fields) {
    if ("string" in f) {
      if (f.string !== "") size += varintSize(f.field << 3) + encoder.text(f.string);
    } else if ("bool" in f) {
      if (f.bool) size += varintSize(f.field << 3) + 1;
    } else {
      const at = encoder.sizes.push(0) - 1;
      const n = encoder.struct(f.struct);
      encoder.sizes[at] = n;
      size += varintSize(f.field << 3) + varintSize(n) + n;
    }
  }
  const writer = new Writer(Buffer.allocUnsafe(size), encoder.sizes);
  for (const f of fields) {
    if ("string" in f) {
      if (f.string !== "") writer.string(f.field, f.string);
    } else if ("bool" in f) {
      if (!f.bool) continue;
      writer.varint(f.field << 3 | WIRE_VARINT);
      writer.byte(1);
    } else {
      writer.varint(f.field << 3 | WIRE_BYTES);
      writer.varint(writer.sizes[writer.next++]!);
      writer.struct(f.struct);
    }
  }
  return writer.buf;
}

/** The bytes of a Struct holding `fields`. */
export function encodeStruct(fields: Record<string, unknown>): Buffer {
  const encoder = new Encoder();
  const size = encoder.struct(fields);
  const writer = new Writer(Buffer.allocUnsafe(size), encoder.sizes);
  writer.struct(fields);
  return writer.buf;
}

/** The bytes as a Buffer, without a copy. */
const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

class Reader {
  readonly buf: Buffer;
  readonly end: number;
  pos: number;
  constructor(bytes: Uint8Array) {
    this.buf = asBuffer(bytes);
    this.pos = 0;
    this.end = bytes.length;
  }

  varint(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (this.pos >= this.end) throw new Error("truncated protobuf message");
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
  }

  /** An int32: its low 32 bits (a negative one takes ten bytes). */
  int32(): number {
    let result = 0;
    for (let shift = 0; ; shift += 7) {
      if (this.pos >= this.end) throw new Error("truncated protobuf message");
      const b = this.buf[this.pos++]!;
      if (shift < 32) result |= (b & 0x7f) << shift;
      if (b < 0x80) return result | 0;
    }
  }

  /** The end of the length-delimited field starting here. */
  delimited(): number {
    const n = this.varint();
    const end = this.pos + n;
    if (end > this.end) throw new Error("truncated protobuf message");
    return end;
  }

  skip(wire: number): void {
    if (wire === WIRE_VARINT) this.varint();
    else if (wire === WIRE_FIXED64) this.fixed(8);
    else if (wire === WIRE_BYTES) this.pos = this.delimited();
    else if (wire === WIRE_FIXED32) this.fixed(4);
    else throw new Error(`unsupported protobuf wire type ${wire}`);
  }

  /** Where the next `size` bytes start, once passed. */
  fixed(size: number): number {
    const at = this.pos;
    if (at + size > this.end) throw new Error("truncated protobuf message");
    this.pos += size;
    return at;
  }

  string(): string {
    const end = this.delimited();
    const s = this.buf.toString("utf8", this.pos, end);
    this.pos = end;
    return s;
  }
}

function readValue(r: Reader, end: number): Json {
  let kind: Json | undefined;
  while (r.pos < end) {
    const tag = r.varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (field === 1 && wire === WIRE_VARINT) {
      r.varint();
      kind = null;
    } else if (field === 2 && wire === WIRE_FIXED64) {
      kind = r.buf.readDoubleLE(r.fixed(8));
    } else if (field === 3 && wire === WIRE_BYTES) kind = r.string();
    else if (field === 4 && wire === WIRE_VARINT) kind = r.varint() !== 0;
    else if (field === 5 && wire === WIRE_BYTES) {
      const e = r.delimited();
      kind = readStruct(r, e);
    } else if (field === 6 && wire === WIRE_BYTES) {
      const e = r.delimited();
      const list: Json[] = [];
      while (r.pos < e) {
        const t = r.varint();
        if (t === ((1 << 3) | WIRE_BYTES)) list.push(readValue(r, r.delimited()));
        else r.skip(t & 7);
      }
      kind = list;
    } else r.skip(wire);
  }
  r.pos = end;
  if (kind === undefined) throw new Error("Unexpected struct type");
  return kind;
}

function readStruct(r: Reader, end: number): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  while (r.pos < end) {
    const tag = r.varint();
    if (tag !== ((1 << 3) | WIRE_BYTES)) {
      r.skip(tag & 7);
      continue;
    }
    const entryEnd = r.delimited();
    let key = "";
    let value: Json | undefined;
    while (r.pos < entryEnd) {
      const t = r.varint();
      if (t === ((1 << 3) | WIRE_BYTES)) key = r.string();
      else if (t === ((2 << 3) | WIRE_BYTES)) value = readValue(r, r.delimited());
      else r.skip(t & 7);
    }
    r.pos = entryEnd;
    if (value === undefined) throw new Error("Unexpected struct type");
    setMember(out, key, value);
  }
  r.pos = end;
  return out;
}

/** The JavaScript object a Struct's bytes hold. */
export function decodeStruct(bytes: Uint8Array): { [key: string]: Json } {
  return readStruct(new Reader(bytes), bytes.length);
}

/**
 * A message's bytes split at some of its length-delimited fields: each one's bytes (a message sends each once), and
 * the message's other bytes, in order.
 */
export function takeFields(bytes: Uint8Array, fields: readonly number[]): { taken: (Uint8Array | undefined)[]; rest: Uint8Array } {
  const r = new Reader(bytes);
  const kept: Uint8Array[] = [];
  const taken: (Uint8Array | undefined)[] = fields.map(() => undefined);
  let from = 0;
  while (r.pos < r.end) {
    const at = r.pos;
    const tag = r.varint();
    const which = (tag & 7) === WIRE_BYTES ? fields.indexOf(Math.floor(tag / 8)) : -1;
    if (which < 0) {
      r.skip(tag & 7);
      continue;
    }
    const end = r.delimited();
    if (at > from) kept.push(bytes.subarray(from, at));
    taken[which] = bytes.subarray(r.pos, end);
    r.pos = from = end;
  }
  if (from === 0) return { taken, rest: bytes };
  if (from < bytes.length) kept.push(bytes.subarray(from));
  return { taken, rest: Buffer.concat(kept) };
}

/** A message's fields one at a time, for a decoder that knows what each holds: it reads a field's value or skips it. */
export class MessageReader {
  readonly #r: Reader;
  field = 0;
  wire = 0;

  constructor(bytes: Uint8Array) {
    this.#r = new Reader(bytes);
  }

  /** Moves to the next field; false at the message's end. */
  next(): boolean {
    if (this.#r.pos >= this.#r.end) return false;
    const tag = this.#r.varint();
    this.field = Math.floor(tag / 8);
    this.wire = tag & 7;
    return true;
  }

  #expect(wire: number): void {
    if (this.wire !== wire) throw new Error(`protobuf field ${this.field} has wire type ${this.wire}, not ${wire}`);
  }

  string(): string {
    this.#expect(WIRE_BYTES);
    return this.#r.string();
  }

  bool(): boolean {
    this.#expect(WIRE_VARINT);
    return this.#r.varint() !== 0;
  }

  int32(): number {
    this.#expect(WIRE_VARINT);
    return this.#r.int32();
  }

  /** A nested message's bytes. */
  bytes(): Uint8Array {
    this.#expect(WIRE_BYTES);
    const end = this.#r.delimited();
    const bytes = this.#r.buf.subarray(this.#r.pos, end);
    this.#r.pos = end;
    return bytes;
  }

  skip(): void {
    this.#r.skip(this.wire);
  }
}

/** Pulumi's SourcePosition (source.proto): where a resource was declared. */
export interface SourcePosition {
  uri: string;
  line: number;
  column: number;
}

/** A SourcePosition's bytes. */
export function readSourcePosition(buf: Uint8Array): SourcePosition {
  const position: SourcePosition = { uri: "", line: 0, column: 0 };
  for (const r = new MessageReader(buf); r.next();) {
    if (r.field === 1) position.uri = r.string();
    else if (r.field === 2) position.line = r.int32();
    else if (r.field === 3) position.column = r.int32();
    else r.skip();
  }
  return position;
}

/** The position of each frame of a StackTrace's bytes (`frames[].pc`, source.proto), innermost first. */
export function readStackTrace(buf: Uint8Array): SourcePosition[] {
  const positions: SourcePosition[] = [];
  for (const trace = new MessageReader(buf); trace.next();) {
    if (trace.field !== 1) {
      trace.skip();
      continue;
    }
    for (const frame = new MessageReader(trace.bytes()); frame.next();) {
      if (frame.field === 1) positions.push(readSourcePosition(frame.bytes()));
      else frame.skip();
    }
  }
  return positions;
}
