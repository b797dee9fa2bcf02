"""The one place that picks the Qt binding (as Anki's ``aqt/qt`` does).

Everything in ``tacmap.ui`` imports Qt names from here, so a binding change
or a version workaround touches one file.
"""

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QEvent,
    QFile,
    QFileDevice,
    QIODevice,
    QLineF,
    QLockFile,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRect,
    QRectF,
    QSize,
    QSizeF,
    QStandardPaths,
    QStringListModel,
    Qt,
    QThread,
    QTimer,
    QUrl,
    QVariantAnimation,
    Signal,
    qVersion,
)
from PySide6.QtGui import (
    QAction,
    QBrush,
    QCloseEvent,
    QColor,
    QCursor,
    QDesktopServices,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QEnterEvent,
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QHelpEvent,
    QIcon,
    QImage,
    QImageReader,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QMoveEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
    QPixmap,
    QPixmapCache,
    QPolygonF,
    QResizeEvent,
    QScreen,
    QShowEvent,
    QStaticText,
    QStatusTipEvent,
    QTransform,
    QValidator,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsObject,
    QGraphicsPathItem,
    QGraphicsPixmapItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QStatusBar,
    QStyledItemDelegate,
    QStyleOptionGraphicsItem,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QToolBar,
    QToolButton,
    QToolTip,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

__all__ = [
    "QAbstractItemView",
    "QAction",
    "QApplication",
    "QBrush",
    "QBuffer",
    "QByteArray",
    "QCheckBox",
    "QCloseEvent",
    "QColor",
    "QComboBox",
    "QCursor",
    "QDesktopServices",
    "QDialog",
    "QDialogButtonBox",
    "QDockWidget",
    "QDoubleSpinBox",
    "QDragEnterEvent",
    "QDragMoveEvent",
    "QDropEvent",
    "QEnterEvent",
    "QEvent",
    "QFile",
    "QFileDevice",
    "QFileDialog",
    "QFont",
    "QFontMetricsF",
    "QFormLayout",
    "QFrame",
    "QGraphicsEllipseItem",
    "QGraphicsItem",
    "QGraphicsLineItem",
    "QGraphicsObject",
    "QGraphicsPathItem",
    "QGraphicsPixmapItem",
    "QGraphicsScene",
    "QGraphicsSimpleTextItem",
    "QGraphicsView",
    "QGroupBox",
    "QGuiApplication",
    "QHBoxLayout",
    "QHeaderView",
    "QHelpEvent",
    "QIODevice",
    "QIcon",
    "QImage",
    "QImageReader",
    "QInputDialog",
    "QKeyEvent",
    "QKeySequence",
    "QLabel",
    "QLineEdit",
    "QLineF",
    "QListWidget",
    "QListWidgetItem",
    "QLockFile",
    "QMainWindow",
    "QMenu",
    "QMessageBox",
    "QMimeData",
    "QModelIndex",
    "QMouseEvent",
    "QMoveEvent",
    "QObject",
    "QPaintEvent",
    "QPainter",
    "QPainterPath",
    "QPen",
    "QPersistentModelIndex",
    "QPixmap",
    "QPixmapCache",
    "QPoint",
    "QPointF",
    "QPolygonF",
    "QProgressBar",
    "QPushButton",
    "QRadioButton",
    "QRect",
    "QRectF",
    "QResizeEvent",
    "QScreen",
    "QScrollArea",
    "QShowEvent",
    "QSize",
    "QSizeF",
    "QSizePolicy",
    "QSpinBox",
    "QStandardPaths",
    "QStaticText",
    "QStatusBar",
    "QStatusTipEvent",
    "QStringListModel",
    "QStyle",
    "QStyleOptionGraphicsItem",
    "QStyleOptionViewItem",
    "QStyledItemDelegate",
    "QTableWidget",
    "QTableWidgetItem",
    "QThread",
    "QTimer",
    "QToolBar",
    "QToolButton",
    "QToolTip",
    "QTransform",
    "QTreeView",
    "QUrl",
    "QVBoxLayout",
    "QValidator",
    "QVariantAnimation",
    "QWheelEvent",
    "QWidget",
    "Qt",
    "Signal",
    "qVersion",
    "submenu",
]


class _NoFeatureScan:
    """Marks each module, as it is looked for, as one PySide's ``__feature__`` selection
    ignores; finds nothing itself.

    Why: once PySide is loaded it reads the source of every module imported after it
    (``inspect.getsource``, to learn whether the module could write ``from __feature__
    import``): 16 ms of the demo's cold start (the 150 modules the window imports after
    Qt), more with pyqtgraph at the first chart. tacmap and the libraries it loads never
    select a feature, so the answer is known: -1, the mark PySide itself writes for a
    module without "PySide6" in its source, under which Qt's names read as they always
    do. A PySide without the table (its internals are not an API) is left alone."""

    def __init__(self, marks: dict[str, int]) -> None:
        self.marks = marks

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> "ModuleSpec | None":
        """None, after marking ``fullname``."""
        self.marks.setdefault(fullname, -1)
        return None


def _skip_feature_scan() -> None:
    """Spare each import after PySide's the reading of its source (see _NoFeatureScan)."""
    marks = getattr(sys.modules.get("shibokensupport.feature"), "pyside_feature_dict", None)
    if not isinstance(marks, dict) or any(isinstance(f, _NoFeatureScan)
                                          for f in sys.meta_path):
        return
    for name in list(sys.modules):
        marks.setdefault(name, -1)
    sys.meta_path.insert(0, _NoFeatureScan(marks))


_skip_feature_scan()


if TYPE_CHECKING:
    from PySide6.QtWidgets import QStyle


def __getattr__(name: str) -> Any:
    """The Qt names made on first use: creating ``QStyle`` (its hundreds of enum values)
    costs a window's cold start 7 ms, and only a selected log line needs it."""
    if name == "QStyle":
        from PySide6.QtWidgets import QStyle

        globals()[name] = QStyle  # from now on a plain name: paints read it per line
        return QStyle
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def submenu(action: QAction, owner: QWidget) -> QMenu | None:
    """The menu ``action`` opens (a menu of ``owner``'s), or None.

    Not ``QAction.menu()``: what its wrapper owns differs from PySide6 6.8 to 6.11
    (in some, dropping the result deletes the menu or its entries).
    """
    for menu in owner.findChildren(QMenu):
        if menu.menuAction() is action:
            return menu
    return None
