// Prerenders the public pages into dist/ after the client build (npm run build): each page's HTML
// as an anonymous visitor first sees it, rendered by the app's own components (src/entry-server.tsx,
// built for Node into .ssr/), inside the built index.html. The server sends it for that path
// (web/spa.go) and main.tsx hydrates it (docs/web.md, "First paint").
//   node scripts/prerender.mjs
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

// static: the page is whole without JavaScript; otherwise it is a form, which takes typing
// without it. Both wait for the visitor's first interaction to load the app (main.tsx).
// site: the operator's content (config site.*, web/site.go) the page shows; where the operator
// set any of it, the server sends the page unrendered and the app renders it with theirs.
// plans: the page shows GET /api/plans: it is rendered once per set of plans a server can sell
// (scripts/plans.json, with each paid plan purchasable or not), and the server sends the one
// that is its own (web/prerender.go).
const pages = [
  { path: "/", static: true, site: ["stats", "testimonials"] },
  { path: "/about", static: true, site: ["stats", "headline", "about", "team"] },
  { path: "/faq", static: true },
  { path: "/legal/terms-of-service", static: true },
  { path: "/legal/privacy-policy", static: true },
  { path: "/pricing", static: true, plans: true },
  { path: "/contact", static: false },
  { path: "/auth/signin", static: false },
  { path: "/auth/signup", static: false },
];

// The plans as a server without payments sells them (core.Plans; a Go test holds the two equal),
// and each way a server with payments may sell its paid plans.
const basePlans = JSON.parse(readFileSync("scripts/plans.json", "utf8"));
const paid = basePlans.filter((plan) => plan.id !== "starter").map((plan) => plan.id);
const planSets = [[]];
for (const id of paid) for (const set of [...planSets]) planSets.push([...set, id]);
const variants = (page) =>
  page.plans
    ? planSets.map((sold) => ({
        suffix: sold.length ? `-${sold.join("-")}` : "",
        plans: basePlans.map((plan) => ({ ...plan, purchasable: sold.includes(plan.id) })),
      }))
    : [{ suffix: "" }];

// React's production build, as the browser gets.
process.env.NODE_ENV = "production";

const emptyRoot = '<div id="root"></div>';
const index = readFileSync("dist/index.html", "utf8");
if (!index.includes(emptyRoot)) throw new Error(`dist/index.html has no ${emptyRoot}`);

const { render } = await import("../.ssr/entry-server.js");
rmSync("dist/prerender", { recursive: true, force: true });
const manifest = [];
for (const page of pages) {
  for (const { suffix, plans } of variants(page)) {
    const html = await render(page.path, { plans });
    // The server's Content-Security-Policy allows no inline script or style.
    if (/<script|<style|\sstyle=/i.test(html)) throw new Error(`${page.path}: the prerendered HTML has an inline script or style`);
    const file = `${page.path === "/" ? "index" : page.path.slice(1)}${suffix}.html`;
    const kind = page.static ? "static" : "form";
    // The plans shown, for the app to hydrate with: a data block, which no policy runs.
    const data = plans ? `<script type="application/json" id="prerendered-plans">${JSON.stringify(plans).replaceAll("<", "\\u003c")}</script>` : "";
    mkdirSync(dirname(`dist/prerender/${file}`), { recursive: true });
    writeFileSync(`dist/prerender/${file}`, index.replace(emptyRoot, `<div id="root" data-prerendered="${kind}">${html}</div>${data}`));
    manifest.push({ path: page.path, file, site: page.site ?? [], ...(plans ? { plans } : {}) });
    console.log(`prerendered ${page.path} as ${file} (${kind}, ${html.length.toLocaleString("en")} B)`);
  }
}
writeFileSync("dist/prerender/pages.json", JSON.stringify(manifest, null, 2) + "\n");
rmSync(".ssr", { recursive: true, force: true });
// The app's modules leave handles open in Node (a BroadcastChannel): done is done.
process.exit(0);
