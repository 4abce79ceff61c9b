// The invite pages (/invite/#<token>, and the page that explains a refused
// link): the token rides after "#", which the browser never sends, so it
// reaches no server, proxy or access log. Take it out of the address bar and
// the history, then post it (a form body is never logged). A link pasted into
// the address bar of a tab already at /invite/ only changes the fragment,
// which loads nothing: "hashchange" posts that one too. Without this script
// the visitor pastes the link into the form.
const form = document.getElementById("join-form");

function fragment() {
  const text = location.hash.slice(1);
  try {
    return decodeURIComponent(text).trim();
  } catch {
    return text.trim(); // a stray "%": the server says the link is not valid
  }
}

function join() {
  const token = fragment();
  if (!form || !token) return;
  history.replaceState(null, "", location.pathname + location.search);
  form.elements.token.value = token;
  document.getElementById("join-note").textContent = "Joining the table…";
  form.submit();
}

addEventListener("hashchange", join);
join();
