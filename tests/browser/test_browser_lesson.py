"""Real browser: a lesson presented with the arrow keys, a predict step revealed by →, its
answer and section on one projector screen, and ← back to it still revealed."""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from dpui import registry
from dpui.kit import follow_store, lesson, lesson_store
from dpui.reference import lesson_page
from tests.browser.lecturer import lead
from tests.browser.settle import settle
from tests.browser.text_boxes import cut_text, overlapping_text, small_plot_areas

TARGETS = lesson_page.targets(registry.PAGES)


@pytest.mark.browser
def test_a_lesson_steps_with_the_arrow_keys_and_reveals_a_predict_step(server, tab):
    page = tab
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/lesson", wait_until="domcontentloaded")
    page.get_by_role("button", name="Load the example: DP histograms in 50 minutes").click()
    page.get_by_text("Loaded 10 steps from the example lesson").wait_for(timeout=60_000)
    page.get_by_role("button", name="Present the lesson").click()
    step = page.get_by_text(re.compile(r"^Step \d+ of 10$"))
    expect(step).to_have_text("Step 1 of 10", timeout=60_000)
    expect(page).to_have_url(re.compile(r"/epsilon\?.*eps_part=neighbours"))
    settle(page)
    assert page.get_by_role("switch", name="Presentation mode").is_checked()
    assert page.locator(".js-plotly-plot").count() >= 1

    page.keyboard.press("ArrowRight")
    expect(step).to_have_text("Step 2 of 10", timeout=60_000)
    expect(page).to_have_url(re.compile(r"eps_part=attacker"))
    reveal = page.get_by_role("button", name="Reveal")
    reveal.wait_for(timeout=60_000)
    settle(page)
    assert page.locator(".js-plotly-plot").count() == 0  # predict first: no figure yet
    assert page.get_by_text("How sure can they become, at most", exact=False).is_visible()
    page.keyboard.press("ArrowRight")  # → on a hidden step reveals it, and stays on it
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    expect(reveal).to_have_count(0)
    expect(step).to_have_text("Step 2 of 10")
    # the answer (in the step bar) and the section it names, on one 1280x720 screen
    answer = page.get_by_text("At most e/(1 + e) ≈ 0.731", exact=False)
    expect(answer).to_be_in_viewport(timeout=30_000)
    heading = page.get_by_role("heading", name="The attacker's posterior")
    expect(heading).to_be_in_viewport(timeout=30_000)
    page.wait_for_timeout(2500)  # the scroll holds until all stays put 2 s: still there
    for shown in (answer, heading, step):
        box = shown.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 720

    page.keyboard.press("ArrowRight")
    expect(step).to_have_text("Step 3 of 10", timeout=60_000)
    expect(page).to_have_url(re.compile(r"/laplace\?"))
    page.keyboard.press("ArrowLeft")
    expect(step).to_have_text("Step 2 of 10", timeout=60_000)
    expect(page).to_have_url(re.compile(r"/epsilon\?.*eps_part=attacker"))
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)  # still revealed
    expect(page.get_by_role("button", name="Reveal")).to_have_count(0)


@pytest.mark.browser
def test_a_lessons_short_link_shows_full_screen_as_a_code_a_hall_can_scan(server, tab):
    page = tab
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/lesson", wait_until="domcontentloaded")
    page.get_by_role("button", name="Load the example: DP histograms in 50 minutes").click()
    page.get_by_text("Loaded 10 steps from the example lesson").wait_for(timeout=60_000)
    short = page.get_by_text(re.compile(r"/lesson\?l=[a-z2-7]{10}$"))
    short.scroll_into_view_if_needed()
    key = short.inner_text().rsplit("=", 1)[1]  # before the popover repeats the link
    # the Save section's popover (the toolbar's own is the first)
    page.get_by_role("button", name="QR code").last.click()
    page.get_by_role("button", name="Show the QR code of this lesson").click()
    page.locator('[data-testid="stPopoverBody"] img').first.wait_for(timeout=30_000)
    page.get_by_role("button", name="Full screen, for the room").click()
    code = page.locator(".dp-qr-full img")
    code.wait_for(timeout=30_000)
    box = code.bounding_box()
    assert box is not None and box["height"] >= 600 and box["width"] >= 600
    assert box["y"] >= 0 and box["y"] + box["height"] <= 720  # all of it on the screen
    assert f"l={key}" in (code.get_attribute("alt") or "")
    # served on loopback: the code says phones cannot open it, and how to serve instead
    expect(page.locator(".dp-qr-full")).to_contain_text("works only on this computer")
    page.get_by_role("button", name="Close the QR code").click()
    expect(page.locator(".dp-qr-full")).to_have_count(0, timeout=30_000)


ON_SCREEN = """() => [...document.querySelectorAll('[data-testid=stElementContainer]')]
  .map(e => [e.getBoundingClientRect(), e.innerText.slice(0, 80)])
  .filter(([r]) => r.height > 0 && r.bottom > 0 && r.top < innerHeight)
  .map(([r, text]) => [Math.round(r.top), Math.round(r.height), text])"""
"""The element blocks on screen (top, height, text): what pushed a figure off, when one is."""


@pytest.mark.browser
def test_every_step_of_the_bundled_lesson_shows_its_answer_and_figure_on_one_screen(server, tab):
    """Issue 35's target: after Reveal, each step's answer and the figure that answers it
    (its section's heading, or the page's first figure) inside one 1280x720 screen."""
    lessons = lesson.from_json(lesson_page.EXAMPLE.read_bytes(), TARGETS)
    page = tab
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/lesson", wait_until="domcontentloaded")
    page.get_by_role("button", name="Load the example: DP histograms in 50 minutes").click()
    page.get_by_text("Loaded 10 steps from the example lesson").wait_for(timeout=60_000)
    page.get_by_role("button", name="Present the lesson").click()
    counter = page.get_by_text(re.compile(r"^Step \d+ of 10$"))
    for k, step in enumerate(lessons.steps, start=1):
        expect(counter).to_have_text(f"Step {k} of 10", timeout=90_000)
        settle(page)
        if page.get_by_role("button", name="Reveal").count():
            page.keyboard.press("ArrowRight")
            # the answer shows when the revealing run starts: settle waits for that run
            page.locator(".dp-lesson-answer").wait_for(timeout=60_000)
            settle(page)
        answer = page.locator(".dp-lesson-answer")
        expect(answer).to_be_in_viewport(ratio=1, timeout=30_000)
        # the clock in the bar: the step's budget and the lesson's, the sum of its steps'
        total = sum(s.minutes for s in lessons.steps)
        expect(page.locator(".dp-lesson-clock")).to_have_text(
            re.compile(rf"^\d+ of {step.minutes:g} min(?: \(over\))?, lesson \d+ of {total:g} min")
        )
        if step.section:
            shown = page.locator(f"#{step.section}")
        else:
            shown = page.locator('[data-testid="stPlotlyChart"]').first
        shown.wait_for(timeout=60_000)
        expect(shown).to_be_in_viewport(timeout=30_000)
        page.wait_for_timeout(2500)  # the scroll holds until all stays put 2 s: still there
        if out := os.environ.get("DP_EXPLORER_SCREENSHOTS"):
            Path(out).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=f"{out}/lesson-step-{k}-projector.png")
        for element, what in ((answer, "answer"), (shown, "figure")):
            box = element.bounding_box()
            assert box is not None, (k, what)
            assert box["y"] >= -1 and box["y"] + box["height"] <= 721, (
                k,
                what,
                box,
                page.evaluate(ON_SCREEN),
            )
        if k < len(lessons.steps):
            page.keyboard.press("ArrowRight")


@pytest.mark.browser
def test_a_student_on_a_phone_follows_the_lecturers_steps_and_reveal(server, browser):
    """The follow link: a student's page (390 px, interactive) opens the step the lecturer
    presents and shows its figure once the lecturer reveals it, by itself."""
    lecturer = browser.new_page()
    lecturer.set_viewport_size({"width": 1280, "height": 720})
    link = lead(lecturer, server)

    student = browser.new_page()
    student.set_viewport_size({"width": 390, "height": 844})
    student.goto(link, wait_until="domcontentloaded")
    following = student.get_by_text(re.compile(r"^Following the lecturer · step \d+ of 10$"))
    expect(following).to_have_text("Following the lecturer · step 1 of 10", timeout=60_000)
    settle(student)
    assert not student.get_by_role("switch", name="Presentation mode").is_checked()

    lecturer.keyboard.press("ArrowRight")  # step 2: predict first
    expect(following).to_have_text("Following the lecturer · step 2 of 10", timeout=30_000)
    expect(student).to_have_url(re.compile(r"/epsilon\?.*eps_part=attacker"))
    settle(student)
    assert student.locator(".js-plotly-plot").count() == 0
    lecturer.keyboard.press("ArrowRight")  # the lecturer reveals it
    student.locator(".dp-lesson-answer").wait_for(timeout=30_000)
    student.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
    settle(student)
    # the student explores on their own, then comes back to the lecturer's step
    student.get_by_role("button", name="Stop following").click()
    student.get_by_role("button", name="Follow the lecturer again").wait_for(timeout=30_000)
    lecturer.keyboard.press("ArrowRight")
    expect(lecturer.get_by_text(re.compile(r"^Step \d+ of 10$"))).to_have_text(
        "Step 3 of 10", timeout=60_000
    )
    settle(student)
    expect(student).to_have_url(re.compile(r"/epsilon\?"))
    student.get_by_role("button", name="Follow the lecturer again").click()
    expect(following).to_have_text("Following the lecturer · step 3 of 10", timeout=30_000)
    expect(student).to_have_url(re.compile(r"/laplace\?"), timeout=30_000)
    for page in (lecturer, student):
        page.close()


@pytest.mark.browser
def test_every_step_of_the_bundled_lesson_reaches_a_students_phone_whole(server, tab):
    """Issue 35: each step of the bundled lesson on a student's phone (390x844, normal mode,
    following the lecturer, the step revealed): its answer and the figure that answers it
    (its section's heading, or the page's first figure) shown, and no chart's text printed
    over other text or cut, no plot area under the minimum (``text_boxes``). One page visits
    every step: the test moves the class's room itself (the lecturer's side, without a
    lecturer's page), and the student's page opens each step by itself."""
    lessons = lesson.from_json(lesson_page.EXAMPLE.read_bytes(), TARGETS)
    stored = lesson_store.put(lesson.to_json(lessons))
    room = follow_store.open_room(stored, 0, revealed=True)
    page = tab
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server}/lesson?{follow_store.URL_KEY}={room.code}", wait_until="domcontentloaded")
    following = page.get_by_text(re.compile(r"^Following the lecturer · step \d+ of \d+$"))
    out = os.environ.get("DP_EXPLORER_SCREENSHOTS")
    n = len(lessons.steps)
    for k, step in enumerate(lessons.steps, start=1):
        if k > 1:
            assert follow_store.move(room, stored, k - 1, revealed=True)
        expect(following).to_have_text(f"Following the lecturer · step {k} of {n}", timeout=60_000)
        answer = page.locator(".dp-lesson-answer")
        answer.wait_for(timeout=60_000)
        settle(page)
        expect(answer).to_have_text(step.answer)
        shown = (
            page.locator(f"#{step.section}")
            if step.section
            else page.locator('[data-testid="stPlotlyChart"]').first
        )
        expect(shown).to_be_visible(timeout=30_000)
        assert page.locator('[data-testid="stException"]').count() == 0, k
        if out:
            Path(out).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=f"{out}/lesson-step-{k}-phone.png", full_page=True)
        assert overlapping_text(page) == [], (k, step.page)
        assert cut_text(page) == [], (k, step.page)
        assert small_plot_areas(page) == [], (k, step.page)
