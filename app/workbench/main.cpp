// SPDX-License-Identifier: GPL-3.0-or-later
// kernel-workbench [STUDY] [--phase P --screenshot PNG [--size WxH]] [--palette light|dark]  (see shared/spec/cli.md)

#include "history_action.h"
#include "main_window.h"
#include "models/device_probe.h"
#include "pages/history_dialog.h"
#include "style/app_palette.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QRegularExpression>
#include <QScreen>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace Qt::StringLiterals;

namespace {

// Qt aborts with a long message when it finds no display; say in one line what to do instead.
// Checked before QApplication exists, because constructing it is what aborts.
bool haveDisplay(int argc, char** argv)
{
#if defined(Q_OS_LINUX) || defined(Q_OS_FREEBSD)
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "-platform") == 0)
            return true;
    const char* platform = std::getenv("QT_QPA_PLATFORM");
    if (platform && *platform && std::strncmp(platform, "xcb", 3) != 0 && std::strncmp(platform, "wayland", 7) != 0)
        return true; // offscreen, minimal, vnc, eglfs...: no display server needed
    const char* x = std::getenv("DISPLAY");
    const char* wl = std::getenv("WAYLAND_DISPLAY");
    return (x && *x) || (wl && *wl);
#else
    Q_UNUSED(argc);
    Q_UNUSED(argv);
    return true;
#endif
}

int fail(int code, const QString& message)
{
    std::fprintf(stderr, "kernel-workbench: %s\n", qPrintable(message));
    return code;
}

// One number of --size; more digits than an int holds is simply "too large" (capped below).
int dimension(const QString& digits)
{
    bool ok = false;
    const qlonglong v = digits.toLongLong(&ok);
    return ok ? static_cast<int>(std::min<qlonglong>(v, std::numeric_limits<int>::max()))
              : std::numeric_limits<int>::max();
}

// --size beyond the screen is capped, with one line saying so: a window larger than the screen
// cannot be shown, and a screenshot of 100000x100000 would need 40 GB of pixels. Offscreen there
// is no physical screen (Qt's stand-in is 800x600), so the cap there is 8K UHD, the largest
// screenshot a document needs.
QSize cappedSize(QSize wanted)
{
    const QString platform = QGuiApplication::platformName();
    const QScreen* screen = QGuiApplication::primaryScreen();
    const bool physical = screen && platform != "offscreen"_L1 && platform != "minimal"_L1;
    const QSize limit = physical ? screen->availableSize() : QSize(7680, 4320);
    const QSize capped = wanted.boundedTo(limit);
    if (capped != wanted)
        std::fprintf(stderr, "kernel-workbench: --size %dx%d is larger than the %s (%dx%d): using %dx%d\n",
            wanted.width(), wanted.height(), physical ? "screen" : "offscreen limit", limit.width(), limit.height(),
            capped.width(), capped.height());
    return capped;
}

} // namespace

int main(int argc, char** argv)
{
    if (!haveDisplay(argc, argv)) {
        std::fprintf(stderr,
            "kernel-workbench: no display (neither DISPLAY nor WAYLAND_DISPLAY is set); "
            "to render a view without one: QT_QPA_PLATFORM=offscreen kernel-workbench --phase 8 "
            "--screenshot out.png\n");
        return 1;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(u"kernel-workbench"_s);
    QApplication::setOrganizationName(u"kernel-workbench"_s);
    QApplication::setApplicationVersion(QStringLiteral(KWB_VERSION));
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"Kernel Workbench: one GPU kernel optimisation from target to a license-or-kill verdict."_s);
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(u"study"_s, u"The study file to open (default: the bundled demo)."_s, u"[STUDY]"_s);
    const QCommandLineOption phase(u"phase"_s, u"The view to show: 1-8 (8 is the verdict), live or results."_s, u"P"_s);
    const QCommandLineOption screenshot(u"screenshot"_s, u"Save a PNG of the window at --phase and exit."_s, u"PNG"_s);
    const QCommandLineOption size(
        u"size"_s, u"Window size for --screenshot (default 1280x800)."_s, u"WxH"_s, u"1280x800"_s);
    const QCommandLineOption palette(u"palette"_s,
        u"light or dark: the Fusion style with that palette (default: the desktop's; KWB_PALETTE=dark also works)."_s,
        u"NAME"_s);
    const QCommandLineOption history(u"history"_s,
        u"Show the ledger's history of a benchmark key (docs/ledger.md); with --screenshot, of that view."_s, u"KEY"_s);
    const QCommandLineOption historyDevice(
        u"history-device"_s, u"The device model of --history (default: the one with the most points)."_s, u"MODEL"_s);
    parser.addOptions({phase, screenshot, size, palette, history, historyDevice});
    if (!parser.parse(QApplication::arguments()))
        return fail(2, parser.errorText());
    if (parser.isSet(u"help"_s))
        parser.showHelp(0);
    if (parser.isSet(u"version"_s))
        parser.showVersion();
    if (parser.positionalArguments().size() > 1)
        return fail(2, u"one study at most (got %1)"_s.arg(parser.positionalArguments().size()));

    const QString paletteName
        = parser.isSet(palette) ? parser.value(palette).toLower() : qEnvironmentVariable("KWB_PALETTE").toLower();
    if (parser.isSet(palette) && paletteName != "light"_L1 && paletteName != "dark"_L1)
        return fail(2, u"--palette: expected light or dark (got \"%1\")"_s.arg(parser.value(palette)));
    kwb::gui::applyPalette(paletteName); // light or dark; anything else keeps the desktop's

    const QString view = parser.value(phase).toLower();
    if (!view.isEmpty() && !kwb::gui::MainWindow::viewKeys().contains(view))
        return fail(2, u"--phase: unknown view \"%1\" (expected 1-8, live or results)"_s.arg(view));
    const auto sizeMatch = QRegularExpression(u"^(\\d+)x(\\d+)$"_s).match(parser.value(size));
    if (!sizeMatch.hasMatch() || dimension(sizeMatch.captured(1)) < 200 || dimension(sizeMatch.captured(2)) < 150)
        return fail(
            2, u"--size: expected WxH of at least 200x150, e.g. 1280x800 (got \"%1\")"_s.arg(parser.value(size)));
    const QSize windowSize = cappedSize(QSize(dimension(sizeMatch.captured(1)), dimension(sizeMatch.captured(2))));
    const bool shoot = parser.isSet(screenshot);

    kwb::gui::MainWindow window;
    // A screenshot never asks (nor touches an autosaved side file).
    window.setOfferAutosave(!shoot);
    if (!parser.positionalArguments().isEmpty()) {
        // A file that does not open: a screenshot exits 2; the window itself opens with the error
        // banner and the recent studies (started from a file manager there is no terminal to read).
        if (!window.openFromCommandLine(parser.positionalArguments().first()) && shoot)
            return fail(2, window.document()->lastError());
    } else if (!window.openDemo(!shoot)) {
        // A screenshot must not create files in the user's data folder, so it reads the bundle.
        return fail(2, window.shownError());
    }
    if (!view.isEmpty())
        window.showView(view);
    kwb::gui::HistoryDialog* historyView = nullptr;
    if (parser.isSet(history)) {
        QString why;
        historyView = kwb::gui::makeHistoryDialog(window, parser.value(history), parser.value(historyDevice), &why);
        if (!historyView)
            return fail(2, u"--history: %1"_s.arg(why));
    }

    if (!shoot) {
        window.show();
        if (historyView)
            historyView->show();
        return QApplication::exec();
    }
    window.resize(windowSize);
    window.show();
    if (historyView) {
        historyView->resize(windowSize);
        historyView->show();
    }
    // The device line comes from a child process; give it a moment so the status bar is complete.
    window.deviceProbe()->waitForFinished(5000);
    int status = 0;
    // Plots replot on the event loop (queued); render once those are done.
    QTimer::singleShot(300, &window, [&] {
        const QString path = parser.value(screenshot);
        if (!(historyView ? historyView->grab() : window.grab()).save(path, "PNG"))
            status = fail(1, u"cannot write the screenshot %1"_s.arg(path));
        QApplication::quit();
    });
    QApplication::exec();
    return status;
}
