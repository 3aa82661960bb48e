/** Styles of the hosted page: one card, readable in light and dark mode, clear focus rings. */
export const PAGE_STYLES = `
:root {
  color-scheme: light dark;
  --bg: #eef2f7;
  --card: #ffffff;
  --text: #1b2330;
  --muted: #4f5b6b;
  --border: #d5dce6;
  --accent: #1f5fd1;
  --ok: #136c3a;
  --ok-bg: #e6f4ec;
  --fail: #a3222b;
  --fail-bg: #fbeaea;
  --badge-bg: #fff4d6;
  --badge-text: #6b4e00;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #11151c;
    --card: #1b212b;
    --text: #e8edf4;
    --muted: #a9b4c3;
    --border: #323b48;
    --accent: #7fa8ff;
    --ok: #7ddc9f;
    --ok-bg: #173524;
    --fail: #ff9aa0;
    --fail-bg: #3c1c20;
    --badge-bg: #3a3010;
    --badge-text: #ffdf8a;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0;
  min-height: 100vh;
  display: grid;
  place-items: center;
  padding: 24px 16px;
  background: var(--bg);
  color: var(--text);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
main {
  width: 100%;
  max-width: 560px;
  background: var(--card);
  border: 1px solid var(--border);
  border-radius: 16px;
  padding: 32px;
  box-shadow: 0 12px 40px rgb(15 23 42 / 0.12);
}
.badge {
  display: inline-block;
  margin: 0 0 12px;
  padding: 2px 10px;
  border-radius: 999px;
  background: var(--badge-bg);
  color: var(--badge-text);
  font-size: 0.8rem;
  font-weight: 600;
  letter-spacing: 0.02em;
}
h1 { margin: 0 0 8px; font-size: 1.6rem; line-height: 1.25; }
p { margin: 0 0 16px; }
.lead { color: var(--muted); }
.camera { display: flex; justify-content: center; margin: 8px 0 20px; color: var(--muted); }
dl {
  display: grid;
  grid-template-columns: max-content 1fr;
  gap: 4px 16px;
  margin: 0 0 24px;
  padding: 12px 16px;
  border: 1px solid var(--border);
  border-radius: 10px;
}
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; font-weight: 600; }
fieldset { margin: 0; padding: 0; border: 0; }
legend { margin-bottom: 12px; font-weight: 700; }
.outcomes { list-style: none; margin: 0; padding: 0; display: grid; gap: 12px; }
.outcomes li {
  display: grid;
  gap: 4px;
  padding: 12px;
  border: 1px solid var(--border);
  border-radius: 10px;
}
.outcomes p { margin: 0; color: var(--muted); font-size: 0.92rem; }
button {
  justify-self: start;
  min-height: 44px;
  padding: 10px 18px;
  border: 2px solid transparent;
  border-radius: 8px;
  font: inherit;
  font-weight: 700;
  cursor: pointer;
}
button.verified { background: var(--ok-bg); color: var(--ok); border-color: var(--ok); }
button.failed { background: var(--fail-bg); color: var(--fail); border-color: var(--fail); }
button:hover:not(:disabled) { filter: brightness(0.95); }
button:focus-visible { outline: 3px solid var(--accent); outline-offset: 3px; }
button:disabled { cursor: progress; opacity: 0.6; }
.status { margin: 20px 0 0; font-weight: 600; }
.status:empty { margin: 0; }
.problem {
  margin: 12px 0 0;
  padding: 10px 12px;
  border-radius: 8px;
  background: var(--fail-bg);
  color: var(--fail);
}
.note { margin: 24px 0 0; color: var(--muted); font-size: 0.85rem; }
@media (prefers-reduced-motion: no-preference) {
  button { transition: filter 120ms ease; }
}
`;
