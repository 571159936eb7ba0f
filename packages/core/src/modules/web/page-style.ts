/**
 * The pages' one stylesheet, inline (no outside assets): readable on a phone
 * and a desktop, light or dark as the reader's system prefers, with colours
 * whose contrast passes WCAG AA in both schemes.
 */
export const PAGE_STYLE = `:root{color-scheme:light dark;--bg:#fff;--fg:#1b1b1f;--muted:#56565f;--line:#d8d8e0;--card:#f6f6f9;--link:#1d4ed8;--accent:#5b21b6}
@media (prefers-color-scheme:dark){:root{--bg:#16161a;--fg:#ececf1;--muted:#b4b4c0;--line:#34343c;--card:#1f1f25;--link:#93b4ff;--accent:#c4b5fd}}
*{box-sizing:border-box}html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:1rem/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--link)}a:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.4rem}
header.site,footer.site{border-bottom:1px solid var(--line);padding:.7rem 1rem}
footer.site{border-top:1px solid var(--line);border-bottom:0;color:var(--muted);font-size:.9rem;margin-top:2rem}
header.site a{font-weight:700;text-decoration:none;color:var(--fg)}
main{max-width:42rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;line-height:1.25;margin:.5rem 0}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.profile-header{display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
.avatar{border-radius:12%;background:var(--card);object-fit:cover}
.acct{color:var(--muted);overflow-wrap:anywhere}
.banner{width:100%;max-height:12rem;object-fit:cover;border-radius:.5rem}
dl.fields{display:grid;grid-template-columns:minmax(6rem,auto) 1fr;gap:.3rem .8rem;border:1px solid var(--line);border-radius:.5rem;padding:.6rem}
dl.fields dt{font-weight:600;color:var(--muted)}dl.fields dd{margin:0;overflow-wrap:anywhere}
.verified::after{content:" ✓";color:var(--accent)}
.counts{color:var(--muted);font-size:.95rem;display:flex;gap:1rem;flex-wrap:wrap;padding:0;list-style:none}
article.h-entry{border:1px solid var(--line);border-radius:.6rem;padding:.8rem;margin:.8rem 0;background:var(--card)}
article.focus{border-color:var(--accent);border-width:2px}
.entry-head{display:flex;gap:.6rem;align-items:center}.entry-head .names{display:flex;flex-direction:column;min-width:0}
.entry-head .p-name{font-weight:600}
.e-content{overflow-wrap:anywhere}.e-content p{margin:.5rem 0}
.media{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.4rem;margin:.5rem 0}
.media img{width:100%;height:auto;border-radius:.4rem}
.meta{color:var(--muted);font-size:.9rem;display:flex;gap:.8rem;flex-wrap:wrap}
.meta a{color:var(--muted)}
details summary{cursor:pointer;font-weight:600}
ol.rules{padding-left:1.4rem}ol.rules li{margin:.4rem 0}.hint{color:var(--muted);display:block}
.pager{display:flex;justify-content:space-between;margin:1rem 0}
.notice{border:1px solid var(--line);border-radius:.5rem;padding:.6rem;background:var(--card)}
.account-form .field{margin:1rem 0}.account-form label{display:block;font-weight:600;margin-bottom:.2rem}
.account-form input[type=text],.account-form input[type=email],.account-form input[type=password],.account-form textarea{width:100%;padding:.55rem;font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--muted);border-radius:.4rem}
.account-form label.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
fieldset{border:1px solid var(--line);border-radius:.5rem;margin:1rem 0}
button{font:inherit;padding:.55rem 1.2rem;border-radius:.4rem;border:0;background:var(--accent);color:var(--bg);font-weight:600;cursor:pointer}
.error{color:#b00020;font-weight:600}
@media (prefers-color-scheme:dark){.error{color:#ff8a80}}
@media (max-width:30rem){main{padding:.6rem}dl.fields{grid-template-columns:1fr}}`;
