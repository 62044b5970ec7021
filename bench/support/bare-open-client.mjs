// The floor of an open-model generator, for bench/loadtest-whole.ts: `node bench/support/bare-open-client.mjs
// <url> <rate> <seconds>` sends GET / at its scheduled time, one timer per arrival, over one keep-alive
// node:net connection, and reads each response as it arrives (the socket's `onread` buffer): the two
// wake-ups per request that sending on schedule and stamping each response when it is read need, and no
// other work (no parsing beyond counting heads, no histogram, no report). Prints one JSON line:
// { sent, received }. Plain JavaScript, so starting it needs no loader.
import { connect } from 'node:net';

const [url, rate, seconds] = process.argv.slice(2);
const { hostname, port, host } = new URL(url);
const request = Buffer.from(`GET / HTTP/1.1\r\nhost: ${host}\r\n\r\n`, 'latin1');
const HEAD_END = Buffer.from('\r\n\r\n');
const intervalMs = 1000 / Number(rate);
const arrivals = Math.round(Number(rate) * Number(seconds));
let sent = 0;
let received = 0;

const socket = connect({
  host: hostname,
  port: Number(port),
  noDelay: true,
  onread: {
    buffer: Buffer.allocUnsafe(64 * 1024),
    callback(n, buffer) {
      // Responses are small and whole within a read: count their heads.
      const read = buffer.subarray(0, n);
      for (let at = read.indexOf(HEAD_END); at >= 0; at = read.indexOf(HEAD_END, at + 4)) received++;
      if (sent === arrivals && received >= sent) finish();
      return true;
    },
  },
});

function finish() {
  console.log(JSON.stringify({ sent, received }));
  socket.destroy();
}

socket.once('connect', () => {
  const origin = performance.now();
  const tick = () => {
    socket.write(request);
    sent++;
    if (sent < arrivals) setTimeout(tick, Math.max(0, origin + sent * intervalMs - performance.now()));
    // A response that never comes ends the run with the counts as they are (the benchmark then fails).
    else setTimeout(finish, 10_000).unref();
  };
  tick();
});
socket.on('error', (err) => {
  console.error(err.message);
  process.exit(1);
});
