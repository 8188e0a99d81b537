"""The form renderer: widgets through Jinja2, anything Jinja2 has no template for through
Django's templates.

Django ships the same widget and form templates for both engines and prints the same markup
(the whitespace between a select's options aside); Jinja2 renders them in about a third of the
time, which on the comparison page's team form (about 40 widgets) was a fifth of the page.
The admin's widgets (the related-object wrapper, raw id and date inputs) exist only as Django
templates, so a name Jinja2 cannot find is loaded as Django's own renderer would.
"""

from __future__ import annotations

from typing import Any

from django.forms.renderers import DjangoTemplates, Jinja2
from django.template import TemplateDoesNotExist
from django.utils.functional import cached_property


class WidgetRenderer(Jinja2):
    def get_template(self, template_name: str) -> Any:
        try:
            return super().get_template(template_name)
        except TemplateDoesNotExist:
            return self.django_templates.get_template(template_name)

    @cached_property
    def django_templates(self) -> DjangoTemplates:
        return DjangoTemplates()
