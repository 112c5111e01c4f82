// Opens a report.html in headless Chromium over the DevTools protocol and prints, as JSON on
// stdout, what a person would see: console errors and exceptions, requests that left the page,
// each image's decode result and natural size against its declared size, and the counts the
// page shows with the files they were counted from. Writes a screenshot when asked.
// Usage: node --experimental-websocket report-browser-check.mjs CHROMIUM REPORT.html [SHOT.png]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [chromium, reportPath, shotPath] = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), 'nlspark-chromium-'));
const args = ['--headless=new', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
  '--remote-debugging-port=0', `--user-data-dir=${profile}`, '--window-size=1200,2100',
  'about:blank'];
if (process.getuid && process.getuid() === 0) args.unshift('--no-sandbox'); // root in containers
const browser = spawn(chromium, args, { stdio: ['ignore', 'ignore', 'pipe'] });
let browserErr = '';
browser.stderr.on('data', (d) => { browserErr += d; });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function fail(message) {
  console.error(`report-browser-check: ${message}`);
  try { browser.kill('SIGKILL'); } catch (e) { /* already gone */ }
  process.exit(1);
}
setTimeout(() => fail('no answer from Chromium within 90 s'), 90000).unref();

async function main() {
  const portFile = join(profile, 'DevToolsActivePort');
  for (let i = 0; i < 300 && !existsSync(portFile); i++) await sleep(100);
  if (!existsSync(portFile)) fail(`Chromium did not start: ${browserErr.slice(-2000)}`);
  await sleep(100);
  const port = readFileSync(portFile, 'utf8').split('\n')[0].trim();
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const page = targets.find((t) => t.type === 'page');
  if (!page) fail('Chromium has no page target');
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((ok, bad) => { ws.onopen = ok; ws.onerror = bad; });
  let nextId = 0;
  const pending = new Map();
  const events = [];
  const waiters = [];
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.id !== undefined && pending.has(msg.id)) {
      const { ok, bad } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) bad(new Error(JSON.stringify(msg.error))); else ok(msg.result);
    } else if (msg.method) {
      events.push(msg);
      for (const w of waiters.splice(0)) w(msg);
    }
  };
  const send = (method, params = {}) => new Promise((ok, bad) => {
    const id = ++nextId;
    pending.set(id, { ok, bad });
    ws.send(JSON.stringify({ id, method, params }));
  });
  const until = async (method) => {
    for (;;) {
      if (events.some((e) => e.method === method)) return;
      await new Promise((r) => waiters.push(r));
    }
  };
  await send('Runtime.enable');
  await send('Log.enable');
  await send('Page.enable');
  await send('Network.enable');
  const url = pathToFileURL(resolve(reportPath)).href;
  await send('Page.navigate', { url });
  await until('Page.loadEventFired');
  const facts = await send('Runtime.evaluate', {
    awaitPromise: true, returnByValue: true,
    expression: `(async () => {
      const imgs = [];
      for (const img of document.images) {
        let decoded = true;
        try { await img.decode(); } catch (e) { decoded = false; }
        imgs.push({ alt: img.alt, decoded, complete: img.complete,
          naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight,
          width: Number(img.getAttribute('width')), height: Number(img.getAttribute('height')) });
      }
      const counts = [...document.querySelectorAll('.count')].map((e) => ({
        text: e.textContent.trim(), file: e.dataset.file || null,
        alpha: e.dataset.alpha ? Number(e.dataset.alpha) : null,
        lower: e.dataset.lower || null, upper: e.dataset.upper || null }));
      const peaks = [...document.querySelectorAll('td.peak-mm')].map((e) => e.textContent.trim());
      // each montage's coloured (thresholded) pixels per slice plane, read back from the PNG
      const maps = [];
      for (const img of document.querySelectorAll('img.map[data-planes]')) {
        if (!img.dataset.planes) continue;
        const canvas = document.createElement('canvas');
        canvas.width = img.naturalWidth;
        canvas.height = img.naturalHeight;
        const g = canvas.getContext('2d');
        g.drawImage(img, 0, 0);
        const px = g.getImageData(0, 0, canvas.width, canvas.height).data;
        const top = Number(img.dataset.planeTop);
        const height = Number(img.dataset.planeHeight);
        const planes = img.dataset.planes.split(';').map((p) => {
          const [x0, w] = p.split(',').map(Number);
          let count = 0;
          let sx = 0;
          for (let y = top; y < top + height; y++) {
            for (let x = x0; x < x0 + w; x++) {
              const i = 4 * (y * canvas.width + x);
              const hot = px[i] === 255 && px[i + 2] === 0;
              const cool = px[i] === 0 && px[i + 2] === 255;
              if (hot || cool) { count++; sx += x; }
            }
          }
          return { x0, w, count, cx: count ? sx / count : null };
        });
        const part = img.closest('.inference');
        maps.push({ view: img.dataset.view, labels: img.dataset.labels.split(','),
          slicesMm: img.dataset.slicesMm.split(',').map(Number), planes,
          caption: img.closest('figure').querySelector('figcaption').textContent.trim(),
          inference: part ? part.dataset.inference : null,
          statistic: part ? part.dataset.statistic : null });
      }
      const parts = [...document.querySelectorAll('.inference')].map((e) => ({
        inference: e.dataset.inference, statistic: e.dataset.statistic,
        line: (e.querySelector('.line') || {}).textContent || '',
        nothing: (e.querySelector('.nothing') || {}).textContent || null,
        maps: e.querySelectorAll('img.map').length }));
      return { title: document.title, sections: document.querySelectorAll('section').length,
        imgs, counts, peaks, maps, parts, findings: [...document.querySelectorAll('.findings')]
          .map((e) => e.textContent.trim()) };
    })()` });
  if (shotPath) {
    // the top of the page at 60%: small enough for docs/, large enough to read the findings
    const shot = await send('Page.captureScreenshot', { format: 'png',
      clip: { x: 0, y: 0, width: 1200, height: 2100, scale: 0.6 } });
    writeFileSync(shotPath, Buffer.from(shot.data, 'base64'));
  }
  await sleep(200); // late console messages
  const consoleErrors = [];
  for (const e of events) {
    if (e.method === 'Runtime.exceptionThrown') {
      consoleErrors.push(e.params.exceptionDetails.text);
    } else if (e.method === 'Runtime.consoleAPICalled'
        && ['error', 'assert'].includes(e.params.type)) {
      consoleErrors.push(e.params.args.map((a) => a.value ?? a.description).join(' '));
    } else if (e.method === 'Log.entryAdded' && e.params.entry.level === 'error') {
      consoleErrors.push(e.params.entry.text);
    }
  }
  const requests = events.filter((e) => e.method === 'Network.requestWillBeSent')
    .map((e) => e.params.request.url.slice(0, 80));
  console.log(JSON.stringify({ url, consoleErrors, requests, ...facts.result.value }));
  ws.close();
  const exited = new Promise((r) => browser.once('exit', r));
  browser.kill('SIGTERM');
  await Promise.race([exited, sleep(5000)]);
  try { rmSync(profile, { recursive: true, force: true }); } catch (e) { /* tmp is cleaned */ }
  process.exit(0);
}
main().catch((e) => fail(e.stack || String(e)));
