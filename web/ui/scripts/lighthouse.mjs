// Lighthouse (the pinned devDependency) in its default mobile mode, with the system Chromium,
// on the pages a visitor lands on; every run is printed, none is dropped.
//   node scripts/lighthouse.mjs <server url> [runs per page, default 3]
// `make lighthouse` builds the binary, starts it on a fresh data directory and runs this.
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { chromiumFlags, chromiumPath } from "../e2e/browser.mjs";

const base = process.argv[2];
const runs = Number(process.argv[3] ?? 3);
if (!base) {
  console.error("usage: node scripts/lighthouse.mjs <server url> [runs]");
  process.exit(2);
}
const pages = ["/", "/pricing", "/auth/signin"];
const categories = ["performance", "accessibility", "best-practices", "seo"];
// docs/benchmarks.md: what each category must reach.
const wanted = { performance: 0.95, accessibility: 1, "best-practices": 1, seo: 1 };

const chrome = await chromeLauncher.launch({ chromePath: chromiumPath, chromeFlags: ["--headless=new", ...chromiumFlags] });

const rows = [];
let failed = false;
try {
  for (const path of pages) {
    for (let run = 1; run <= runs; run++) {
      const { lhr } = await lighthouse(base + path, { port: chrome.port, output: "json", logLevel: "error", onlyCategories: categories });
      const scores = categories.map((c) => lhr.categories[c].score);
      // A run Lighthouse could not score (its page did not paint in time on a loaded machine) is
      // reported as such and fails the series; it is not dropped.
      if (scores.includes(null)) {
        failed = true;
        const error = lhr.runtimeError ? `${lhr.runtimeError.code}: ${lhr.runtimeError.message}` : "no score";
        rows.push(`| ${path} | ${run} | not scored (${error}) |  |  |  |  |  |  |  |`);
        console.error(`${path} run ${run}: not scored: ${error}`);
        continue;
      }
      const low = categories.filter((c, i) => scores[i] < wanted[c]);
      if (low.length > 0) failed = true;
      const audits = lhr.audits;
      rows.push(
        `| ${path} | ${run} | ${scores.map((s) => s.toFixed(2)).join(" | ")} | ` +
          `${audits["first-contentful-paint"].displayValue} | ${audits["largest-contentful-paint"].displayValue} | ` +
          `${audits["total-blocking-time"].displayValue} | ${audits["cumulative-layout-shift"].displayValue} |`,
      );
      for (const c of low) {
        const failing = lhr.categories[c].auditRefs
          .map((ref) => audits[ref.id])
          .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode !== "informative" && a.scoreDisplayMode !== "manual");
        console.error(`${path} run ${run}: ${c} ${lhr.categories[c].score}: ${failing.map((a) => `${a.id} (${a.displayValue ?? a.score})`).join(", ")}`);
      }
    }
  }
} finally {
  await chrome.kill();
}

console.log(`Lighthouse ${(await import("lighthouse/package.json", { with: { type: "json" } })).default.version}, mobile, ${base}`);
console.log("| page | run | performance | accessibility | best practices | SEO | FCP | LCP | TBT | CLS |");
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
console.log(rows.join("\n"));
process.exit(failed ? 1 : 0);
