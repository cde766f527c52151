// The home page's JavaScript and CSS as a browser receives them before the visitor interacts:
// every script and stylesheet the page loads (in the system Chromium) until the network is
// idle, with the bytes sent for each under brotli (what Chromium asks for) and under gzip
// alone, against the budgets of docs/web.md (gzip: 35 KB of JavaScript, 15 KB of CSS; exits 1
// over one).
//   node scripts/home-weight.mjs <server url> [path, default /]
import { get } from "node:http";
import { launch } from "../e2e/browser.mjs";

/** The bytes the server sends for url under one Accept-Encoding, as they come (not decoded). */
const bytesSent = (url, encoding) =>
  new Promise((resolve, reject) => {
    get(url, { headers: { "Accept-Encoding": encoding } }, (response) => {
      let size = 0;
      response.on("data", (chunk) => (size += chunk.length));
      response.on("end", () => resolve(size));
    }).on("error", reject);
  });

const base = process.argv[2];
if (!base) {
  console.error("usage: node scripts/home-weight.mjs <server url> [path]");
  process.exit(2);
}
// Another public page the same way: /pricing, /auth/signin.
const path = process.argv[3] ?? "/";
const browser = await launch();
const assets = [];
try {
  const page = await browser.newPage();
  page.on("requestfinished", (request) => {
    const type = request.resourceType();
    if (type === "script" || type === "stylesheet") assets.push({ url: request.url(), type, request });
  });
  await page.goto(base + path, { waitUntil: "networkidle" });
  for (const asset of assets) {
    asset.sent = (await asset.request.sizes()).responseBodySize;
    asset.encoding = (await (await asset.request.response()).allHeaders())["content-encoding"] ?? "none";
    asset.gzip = await bytesSent(asset.url, "gzip");
    asset.plain = await bytesSent(asset.url, "identity");
  }
} finally {
  await browser.close();
}

const kb = (n) => `${n.toLocaleString("en")} B`;
console.log("| file | as sent (encoding) | gzip | uncompressed |");
console.log("| --- | --- | --- | --- |");
for (const a of assets) {
  console.log(`| ${new URL(a.url).pathname} | ${kb(a.sent)} (${a.encoding}) | ${kb(a.gzip)} | ${kb(a.plain)} |`);
}
const budgets = { script: 35 * 1024, stylesheet: 15 * 1024 };
const over = [];
for (const type of ["script", "stylesheet"]) {
  const of = assets.filter((a) => a.type === type);
  const total = (key) => of.reduce((sum, a) => sum + a[key], 0);
  const what = type === "script" ? "JavaScript" : "CSS";
  console.log(`| all ${what} | ${kb(total("sent"))} | ${kb(total("gzip"))} | ${kb(total("plain"))} |`);
  if (total("gzip") > budgets[type]) over.push(`${what}: ${kb(total("gzip"))} gzipped, the budget is ${kb(budgets[type])}`);
}
console.log(over.length ? `over budget: ${over.join("; ")}` : `within budget (gzip: JavaScript ${kb(budgets.script)}, CSS ${kb(budgets.stylesheet)})`);
process.exitCode = over.length ? 1 : 0;
