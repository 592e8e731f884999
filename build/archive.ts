// Release archives written in plain TypeScript (no tar or zip on the build machine needed):
// ustar inside gzip for Unix, and a deflate zip for Windows. Both keep the executable bit.
import { deflateRawSync, gzipSync, type ZlibOptions } from "node:zlib";

export interface ArchiveEntry {
  name: string;
  data: Uint8Array;
  executable: boolean;
}

const TAR_BLOCK = 512;

/** A .tar.gz of the entries (ustar, owner root, a fixed date so rebuilds hash alike). */
export function tarGz(entries: ArchiveEntry[], mtime: number, level: ZlibOptions["level"] = 9): Uint8Array {
  const blocks: Uint8Array[] = [];
  for (const entry of entries) {
    const header = new Uint8Array(TAR_BLOCK);
    const put = (text: string, offset: number, length: number) => header.set(new TextEncoder().encode(text).subarray(0, length), offset);
    const octal = (value: number, width: number) => value.toString(8).padStart(width - 1, "0");
    put(entry.name, 0, 100);
    put(`${octal(entry.executable ? 0o755 : 0o644, 8)}\0`, 100, 8);
    put(`${octal(0, 8)}\0`, 108, 8);
    put(`${octal(0, 8)}\0`, 116, 8);
    put(`${octal(entry.data.length, 12)}\0`, 124, 12);
    put(`${octal(Math.floor(mtime / 1000), 12)}\0`, 136, 12);
    put("        ", 148, 8); // checksum field counts as spaces while summing
    put("0", 156, 1);
    put("ustar\0", 257, 6);
    put("00", 263, 2);
    put("root", 265, 32);
    put("root", 297, 32);
    let sum = 0;
    for (const byte of header) sum += byte;
    put(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
    blocks.push(header, entry.data, new Uint8Array((TAR_BLOCK - (entry.data.length % TAR_BLOCK)) % TAR_BLOCK));
  }
  blocks.push(new Uint8Array(TAR_BLOCK * 2));
  return gzipSync(concat(blocks), { level });
}

/** A .zip of the entries, each deflated, with Unix modes in the external attributes. */
export function zip(entries: ArchiveEntry[], mtime: number): Uint8Array {
  const local: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  const { time, date } = dosDateTime(new Date(mtime));
  for (const entry of entries) {
    const name = new TextEncoder().encode(entry.name);
    const compressed = deflateRawSync(entry.data, { level: 9 });
    const crc = crc32(entry.data);
    const head = new DataView(new ArrayBuffer(30));
    head.setUint32(0, 0x04034b50, true);
    head.setUint16(4, 20, true);
    head.setUint16(8, 8, true);
    head.setUint16(10, time, true);
    head.setUint16(12, date, true);
    head.setUint32(14, crc, true);
    head.setUint32(18, compressed.length, true);
    head.setUint32(22, entry.data.length, true);
    head.setUint16(26, name.length, true);
    local.push(new Uint8Array(head.buffer), name, compressed);
    const record = new DataView(new ArrayBuffer(46));
    record.setUint32(0, 0x02014b50, true);
    record.setUint16(4, (3 << 8) | 20, true); // made by Unix, so the mode below counts
    record.setUint16(6, 20, true);
    record.setUint16(10, 8, true);
    record.setUint16(12, time, true);
    record.setUint16(14, date, true);
    record.setUint32(16, crc, true);
    record.setUint32(20, compressed.length, true);
    record.setUint32(24, entry.data.length, true);
    record.setUint16(28, name.length, true);
    record.setUint32(38, ((entry.executable ? 0o100755 : 0o100644) << 16) >>> 0, true);
    record.setUint32(42, offset, true);
    central.push(new Uint8Array(record.buffer), name);
    offset += 30 + name.length + compressed.length;
  }
  const directory = concat(central);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, directory.length, true);
  end.setUint32(16, offset, true);
  return concat([...local, directory, new Uint8Array(end.buffer)]);
}

function dosDateTime(when: Date): { time: number; date: number } {
  return {
    time: (when.getUTCHours() << 11) | (when.getUTCMinutes() << 5) | Math.floor(when.getUTCSeconds() / 2),
    date: ((when.getUTCFullYear() - 1980) << 9) | ((when.getUTCMonth() + 1) << 5) | when.getUTCDate(),
  };
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
