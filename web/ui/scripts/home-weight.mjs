// The home page's JavaScript and CSS as a browser receives them: every script and stylesheet
// the page loads (in the system Chromium), with the bytes sent for each under brotli (what
// Chromium asks for) and under gzip alone.
//   node scripts/home-weight.mjs <server url>
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
  console.error("usage: node scripts/home-weight.mjs <server url>");
  process.exit(2);
}
const browser = await launch();
const assets = [];
try {
  const page = await browser.newPage();
  page.on("requestfinished", (request) => {
    const type = request.resourceType();
    if (type === "script" || type === "stylesheet") assets.push({ url: request.url(), type, request });
  });
  await page.goto(base + "/", { waitUntil: "networkidle" });
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
for (const type of ["script", "stylesheet"]) {
  const of = assets.filter((a) => a.type === type);
  const sum = (key) => kb(of.reduce((total, a) => total + a[key], 0));
  console.log(`| all ${type === "script" ? "JavaScript" : "CSS"} | ${sum("sent")} | ${sum("gzip")} | ${sum("plain")} |`);
}
