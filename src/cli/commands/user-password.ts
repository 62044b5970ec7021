/**
 * Reads a password from standard input: on a terminal without echo (raw mode, Enter ends, Ctrl-C aborts),
 * else the first line of the piped input.
 */
export async function readPassword(prompt: string, input = process.stdin): Promise<string> {
  if (!input.isTTY) {
    let text = '';
    for await (const chunk of input) {
      text += String(chunk);
      if (text.includes('\n')) break;
    }
    const line = text.split(/\r?\n/)[0] ?? '';
    if (!line) throw Object.assign(new Error('no password on standard input'), { code: 'usage' });
    return line;
  }
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (err?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(value ? undefined : new Error('empty password'));
        if (ch === '\u0003') return done(Object.assign(new Error('aborted'), { code: 'usage' }));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    input.on('data', onData);
  });
}
