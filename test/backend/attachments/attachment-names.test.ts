/**
 * How an uploaded file's name is made safe to store and to send back, and how a download names it and
 * labels its type: only the last path segment, no control or reserved characters, no leading dots, a length
 * limit that keeps the extension; RFC 8187 encoding; only safe media types passed on.
 */
import { describe, expect, it } from 'vitest';
import {
  contentDisposition,
  declaredMediaType,
  FALLBACK_FILE_NAME,
  MAX_FILE_NAME_LENGTH,
  sanitiseFileName,
  servedMediaType,
} from '../../../backend/attachments/attachment';

describe('sanitiseFileName', () => {
  it('keeps only the last path segment, without control or reserved characters', () => {
    expect(sanitiseFileName('../../etc/passwd')).toBe('passwd');
    expect(sanitiseFileName('C:\\Users\\ada\\report.pdf')).toBe('report.pdf');
    expect(sanitiseFileName('in\u0000voice\u001b[31m\u0085.txt')).toBe('invoice[31m.txt');
    expect(sanitiseFileName('a<b>c:d*e?f"g|h.txt')).toBe('abcdefgh.txt');
  });

  it('drops leading dots and trailing dots and spaces, and names an empty result', () => {
    expect(sanitiseFileName('.htaccess')).toBe('htaccess');
    expect(sanitiseFileName('..')).toBe(FALLBACK_FILE_NAME);
    expect(sanitiseFileName('report.pdf. . ')).toBe('report.pdf');
    expect(sanitiseFileName('\u0001\u0002')).toBe(FALLBACK_FILE_NAME);
  });

  it('cuts a long name to the limit and keeps its extension, never half a character', () => {
    const long = `${'a'.repeat(400)}.pdf`;
    const cut = sanitiseFileName(long);
    expect(cut).toHaveLength(MAX_FILE_NAME_LENGTH);
    expect(cut.endsWith('.pdf')).toBe(true);
    const emoji = sanitiseFileName(`${'😀'.repeat(200)}.txt`);
    expect(emoji.length).toBeLessThanOrEqual(MAX_FILE_NAME_LENGTH);
    expect(emoji).toMatch(/^(😀)+\.txt$/u);
  });
});

describe('download names and types', () => {
  it('encodes the name as RFC 8187 ext-value in an attachment disposition', () => {
    expect(contentDisposition('report.pdf')).toBe("attachment; filename*=UTF-8''report.pdf");
    expect(contentDisposition("Ünïcode (1)'s.txt")).toBe(
      "attachment; filename*=UTF-8''%C3%9Cn%C3%AFcode%20%281%29%27s.txt",
    );
  });

  it('serves only safe types as declared, anything else as application/octet-stream', () => {
    expect(servedMediaType('application/pdf')).toBe('application/pdf');
    expect(servedMediaType('image/png')).toBe('image/png');
    for (const active of [
      'text/html',
      'image/svg+xml',
      'application/xhtml+xml',
      'text/javascript',
      'text/xml',
    ]) {
      expect(servedMediaType(active)).toBe('application/octet-stream');
    }
    expect(declaredMediaType('Text/HTML; charset=utf-8')).toBe('text/html');
    expect(declaredMediaType(undefined)).toBe('application/octet-stream');
    expect(declaredMediaType('not a type')).toBe('application/octet-stream');
  });
});
