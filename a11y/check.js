// pa11y with both of its engines (axe-core, HTML_CodeSniffer), WCAG 2.1 AA, over the
// pages named on the command line, in the Chromium the project installs (CHROMIUM, else
// /usr/bin/chromium): one browser for all of them. Prints one JSON document: per page,
// its errors (warnings and notices are not failures).
'use strict';
const pa11y = require('pa11y');
const puppeteer = require('puppeteer');
const path = require('path');

async function main(files) {
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
    headless: true,
  });
  const pages = [];
  try {
    for (const file of files) {
      const result = await pa11y('file://' + path.resolve(file), {
        browser,
        runners: ['axe', 'htmlcs'],
        standard: 'WCAG2AA',
        timeout: 300000,
        includeNotices: false,
        includeWarnings: false,
      });
      pages.push({
        file,
        errors: result.issues
          .filter((issue) => issue.type === 'error')
          .map(({ runner, code, message, selector, context, runnerExtras }) => ({ runner, code, message, selector, context, runnerExtras })),
      });
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(pages) + '\n');
}

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`a11y: ${error.stack || error}\n`);
  process.exit(2);
});
