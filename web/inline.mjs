// Folds the review app's build (.review-build/review.html with one script
// and one stylesheet) into one self-contained HTML document: the MCP App
// resource ui://ripple/review. Fails when the build references anything it
// cannot inline, so the resource never loads from the network.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

// node inline.mjs [BUILD_DIR PAGE OUT]: the test host page uses the same folding.
const [dir, page, out] = process.argv.length > 4 ? process.argv.slice(2, 5) : ['.review-build', 'review.html', '../internal/mcpserver/app/review.html'];
let html = readFileSync(join(dir, page), 'utf8');

// Text inside <script> must not close the element early ("<\/script" means
// the same in JS strings and regular expressions); "<!--" with "<script"
// would switch the HTML parser into its escaped state, so refuse it.
const safeScript = (js) => {
  if (js.includes('<!--') && /<script/i.test(js)) throw new Error('inline.mjs: the script holds both <!-- and <script');
  return js.replace(/<\/(script)/gi, '<\\/$1');
};
const safeStyle = (css) => css.replace(/<\/(style)/gi, '<\\/$1');

html = html.replace(/<script type="module" crossorigin src="\.\/([^"]+)"><\/script>/g, (_, src) => {
  return `<script type="module">${safeScript(readFileSync(join(dir, src), 'utf8'))}</script>`;
});
html = html.replace(/<link rel="stylesheet" crossorigin href="\.\/([^"]+)">/g, (_, href) => {
  return `<style>${safeStyle(readFileSync(join(dir, href), 'utf8'))}</style>`;
});
// Whatever still points at a file or a URL would need the network.
const left = html.match(/<(script|link|img|iframe)\b[^>]*\b(src|href)=/gi);
if (left) {
  console.error(`inline.mjs: ${out} would still load ${left.join(', ')}`);
  process.exit(1);
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, html);
