// The invite page (/invite/#<token>): the token rides after "#", which the
// browser never sends, so it reaches no server, proxy or access log. Take it
// out of the address bar and the history, then post it (a form body is never
// logged). Without this script the visitor pastes the link into the form.
const form = document.getElementById("join-form");
const token = decodeURIComponent(location.hash.slice(1));
if (form && token) {
  history.replaceState(null, "", location.pathname + location.search);
  form.elements.token.value = token;
  document.getElementById("join-note").textContent = "Joining the table…";
  form.submit();
}
