// Renders the PNG images the site ships from their SVG and HTML sources, with the system
// Chromium (playwright-core; no browser is downloaded):
//   public/icon.svg        -> favicon.ico (16, 32, 48), apple-touch-icon.png (180),
//                             icon-192.png, icon-512.png, icon-maskable-512.png
//   scripts/og-image.html  -> og-image.png (1200x630, the share card)
// Run after changing a source: node scripts/render-images.mjs (CHROMIUM names the browser).
import { readFileSync, writeFileSync } from "node:fs";
import { launch } from "../e2e/browser.mjs";

const root = new URL("..", import.meta.url);
const file = (path) => new URL(path, root);
const icon = readFileSync(file("public/icon.svg"), "utf8");

const browser = await launch();
const page = await browser.newPage();

/** The icon at size px; a maskable icon keeps its mark inside the middle 80% on a full-bleed background. */
async function renderIcon(size, { maskable = false } = {}) {
  await page.setViewportSize({ width: size, height: size });
  const mark = maskable ? `<div style="position:absolute;inset:14%">${icon}</div>` : icon;
  await page.setContent(
    `<style>html,body{margin:0;width:${size}px;height:${size}px;overflow:hidden;background:${maskable ? "#4a45c4" : "transparent"}}
     svg{width:100%;height:100%;display:block}</style>${mark}`,
  );
  return page.screenshot({ omitBackground: !maskable, type: "png" });
}

/** An ICO holding PNG images (every browser reads PNG entries). */
function ico(images) {
  const header = Buffer.alloc(6 + 16 * images.length);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(images.length, 4);
  let offset = header.length;
  images.forEach(({ size, png }, i) => {
    const entry = 6 + 16 * i;
    header.writeUInt8(size % 256, entry);
    header.writeUInt8(size % 256, entry + 1);
    header.writeUInt16LE(1, entry + 4);
    header.writeUInt16LE(32, entry + 6);
    header.writeUInt32LE(png.length, entry + 8);
    header.writeUInt32LE(offset, entry + 12);
    offset += png.length;
  });
  return Buffer.concat([header, ...images.map(({ png }) => png)]);
}

try {
  const small = [];
  for (const size of [16, 32, 48]) small.push({ size, png: await renderIcon(size) });
  writeFileSync(file("public/favicon.ico"), ico(small));
  writeFileSync(file("public/apple-touch-icon.png"), await renderIcon(180, { maskable: true }));
  writeFileSync(file("public/icon-192.png"), await renderIcon(192));
  writeFileSync(file("public/icon-512.png"), await renderIcon(512));
  writeFileSync(file("public/icon-maskable-512.png"), await renderIcon(512, { maskable: true }));

  await page.setViewportSize({ width: 1200, height: 630 });
  await page.goto(file("scripts/og-image.html").href);
  writeFileSync(file("public/og-image.png"), await page.screenshot({ type: "png" }));
} finally {
  await browser.close();
}
