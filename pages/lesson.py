"""Lesson: the views collected with "Add to lesson", to edit, save, load and present."""

from dpui import registry
from dpui.kit.page import run
from dpui.reference.lesson_page import editor

run(editor(registry.PAGES))
