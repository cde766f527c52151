// The last page of a social sign-in's popup (served by GET
// /api/auth/oauth/{provider}/callback): it hands the result, which the page
// carries as a JSON data block, to the Sendlater page that opened the popup
// on the same origin, then closes the popup. A BroadcastChannel reaches that
// page even when a provider's page cut the popup off from its opener; a
// window nobody opened stays, showing its message and a link on.
(function () {
  "use strict";
  var el = document.getElementById("oauth-result");
  var result = JSON.parse(el.textContent);
  if ("BroadcastChannel" in window) {
    var channel = new BroadcastChannel("sendlater-oauth");
    channel.postMessage(result);
    channel.close();
  }
  if (window.opener) {
    window.close();
  }
})();
