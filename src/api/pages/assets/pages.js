// The pages' one script, loaded by its nonce: optional. Without it every question shows, a conditional one with its
// "only if" hint; with it, a conditional question hides while its condition does not hold (its answer stays in the
// form, and the server's rules decide as always).
(function () {
  'use strict';
  // After a refused form, the summary of its errors takes the focus: a screen reader reads it, Tab leads to the fields.
  var summary = document.getElementById('error-summary');
  if (summary) summary.focus();
  var conditional = document.querySelectorAll('[data-when-field]');
  if (conditional.length === 0) return;
  function valueOf(name) {
    var fields = document.getElementsByName(name);
    for (var i = 0; i < fields.length; i++) {
      var field = fields[i];
      if (field.type === 'radio' || field.type === 'checkbox') {
        if (field.checked) return field.value;
      } else {
        return field.value;
      }
    }
    return '';
  }
  function update() {
    for (var i = 0; i < conditional.length; i++) {
      var element = conditional[i];
      var value = valueOf(element.getAttribute('data-when-field'));
      var wanted = element.getAttribute('data-when-value');
      // A question with an error stays in view, whatever its condition.
      element.hidden = !element.querySelector('.has-error') && (wanted === null ? value === '' : value !== wanted);
    }
  }
  document.addEventListener('change', update);
  document.addEventListener('input', update);
  update();
})();
