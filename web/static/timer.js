// The per-picture countdown. The server keeps the real clock and rejects late answers; this only shows the
// time left and, at zero, locks the forms and asks the server for the next picture.
(function () {
  const timer = document.getElementById("timer");
  if (!timer) return;
  const end = performance.now() + parseFloat(timer.dataset.secondsLeft) * 1000;
  function tick() {
    const left = Math.max(0, (end - performance.now()) / 1000);
    timer.textContent = Math.ceil(left) + " s left";
    timer.classList.toggle("low", left <= 15);
    if (left > 0) { setTimeout(tick, 250); return; }
    timer.textContent = "Time is up";
    document.querySelectorAll("form.timed button, form.timed input").forEach(function (el) { el.disabled = true; });
    setTimeout(function () { window.location.assign(window.location.pathname); }, 400);
  }
  tick();
})();
