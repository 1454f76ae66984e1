"""The table benchmark's documents and questions, generated from public-statistics-like data.

- prefectures.xlsx (ja): 20 prefectures — 地方, 人口 (2020 census), 面積 (km²).
- sales_2024.xlsx (ja): one sheet per region (関西, 関東, 九州), quarterly sales by product under a merged
  "2024年" header cell (two header rows, flattened to "2024年 / Q3").
- travel_limits.pdf (en): hotel and meal limits for 36 cities, a ruled table that runs over two pages.
- price_list.docx (zh): 12 products — 类别, 价格（元）, 库存.
- provinces.csv (zh): 16 Chinese provinces — 地区, 人口（万人）, 面积（万平方公里）.
- handbook.md / 手引き.md / 手册.md: prose (leave, expenses) with no table, for text questions and near misses.

The questions (bench/tables/questions.jsonl) are written from the same data: every expected value is computed
here from the rows above, never typed in. Each has `lang`, `type` (lookup / aggregate / absent), `op`, and
`expected` (a cell text for a lookup; a number or row labels for an aggregate).

    python bench/tables/make_corpus.py OUT_DIR
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

PREFECTURES = [  # name, English, region, population (2020), area km²
    ("東京都", "Tokyo", "関東", 14047594, 2194), ("神奈川県", "Kanagawa", "関東", 9237337, 2416),
    ("大阪府", "Osaka", "近畿", 8837685, 1905), ("愛知県", "Aichi", "中部", 7542415, 5173),
    ("埼玉県", "Saitama", "関東", 7344765, 3798), ("千葉県", "Chiba", "関東", 6284480, 5157),
    ("兵庫県", "Hyogo", "近畿", 5465002, 8401), ("北海道", "Hokkaido", "北海道", 5224614, 83424),
    ("福岡県", "Fukuoka", "九州", 5135214, 4987), ("静岡県", "Shizuoka", "中部", 3633202, 7777),
    ("茨城県", "Ibaraki", "関東", 2867009, 6097), ("広島県", "Hiroshima", "中国", 2799702, 8479),
    ("京都府", "Kyoto", "近畿", 2578087, 4612), ("宮城県", "Miyagi", "東北", 2301996, 7282),
    ("新潟県", "Niigata", "中部", 2201272, 12584), ("長野県", "Nagano", "中部", 2048011, 13562),
    ("沖縄県", "Okinawa", "九州", 1467480, 2282), ("熊本県", "Kumamoto", "九州", 1738301, 7409),
    ("鹿児島県", "Kagoshima", "九州", 1588256, 9186), ("鳥取県", "Tottori", "中国", 553407, 3507),
]
PRODUCTS = ["ノートPC", "タブレット", "モニター", "キーボード", "マウス", "プリンター"]
SALES = {  # region → product → Q1..Q4 (yen)
    "関西": [[4210000, 4385000, 4712000, 5120000], [1830000, 1764000, 1902000, 2240000], [2215000, 2301000, 2288000, 2410000],
             [412000, 398000, 455000, 501000], [268000, 281000, 259000, 300000], [1190000, 1045000, 998000, 1102000]],
    "関東": [[8120000, 8460000, 8830000, 9710000], [3560000, 3310000, 3945000, 4420000], [4105000, 4260000, 4510000, 4380000],
             [802000, 845000, 861000, 930000], [541000, 562000, 518000, 604000], [2250000, 2190000, 2075000, 2330000]],
    "九州": [[1930000, 2050000, 2120000, 2380000], [845000, 812000, 901000, 1012000], [990000, 1040000, 1085000, 1120000],
             [190000, 185000, 204000, 233000], [121000, 133000, 118000, 140000], [560000, 498000, 455000, 520000]],
}
CITIES = [  # city, country, hotel limit (JPY), meal allowance (JPY)
    ("Tokyo", "Japan", 15000, 3000), ("Osaka", "Japan", 13000, 2800), ("Nagoya", "Japan", 12000, 2600),
    ("Sapporo", "Japan", 11000, 2600), ("Fukuoka", "Japan", 11500, 2600), ("Kyoto", "Japan", 14000, 2800),
    ("London", "United Kingdom", 32000, 7500), ("Manchester", "United Kingdom", 22000, 6000), ("Paris", "France", 30000, 7000),
    ("Lyon", "France", 21000, 5500), ("Berlin", "Germany", 24000, 6000), ("Munich", "Germany", 26000, 6200),
    ("New York", "United States", 38000, 8500), ("San Francisco", "United States", 36000, 8200),
    ("Chicago", "United States", 29000, 7200), ("Seattle", "United States", 27000, 7000), ("Toronto", "Canada", 25000, 6400),
    ("Vancouver", "Canada", 24500, 6300), ("Singapore", "Singapore", 28000, 6000), ("Hong Kong", "China", 27500, 6100),
    ("Shanghai", "China", 20000, 4800), ("Beijing", "China", 19500, 4700), ("Shenzhen", "China", 17000, 4300),
    ("Seoul", "South Korea", 18000, 4500), ("Busan", "South Korea", 14500, 4000), ("Taipei", "Taiwan", 16000, 4200),
    ("Bangkok", "Thailand", 13500, 3500), ("Hanoi", "Vietnam", 12500, 3200), ("Jakarta", "Indonesia", 13000, 3300),
    ("Manila", "Philippines", 12800, 3300), ("Sydney", "Australia", 26500, 6800), ("Melbourne", "Australia", 25500, 6600),
    ("Dubai", "United Arab Emirates", 31000, 7400), ("Mumbai", "India", 15500, 3600), ("Sao Paulo", "Brazil", 17500, 4400),
    ("Mexico City", "Mexico", 16500, 4100),
]
PRICES = [  # 产品, 类别, 价格（元）, 库存
    ("笔记本电脑", "电脑", 6999, 42), ("台式机", "电脑", 4599, 18), ("平板电脑", "电脑", 2899, 65), ("显示器", "外设", 1299, 80),
    ("机械键盘", "外设", 499, 150), ("无线鼠标", "外设", 129, 320), ("打印机", "办公", 1599, 25), ("投影仪", "办公", 3299, 12),
    ("碎纸机", "办公", 899, 30), ("路由器", "网络", 399, 95), ("交换机", "网络", 1199, 40), ("网线", "网络", 29, 600),
]
PROVINCES = [  # 省份, 地区, 人口（万人）, 面积（万平方公里）
    ("广东省", "华南", 12684, 17.98), ("山东省", "华东", 10170, 15.58), ("河南省", "华中", 9883, 16.70), ("江苏省", "华东", 8505, 10.72),
    ("四川省", "西南", 8372, 48.60), ("河北省", "华北", 7448, 18.88), ("湖南省", "华中", 6622, 21.18), ("浙江省", "华东", 6540, 10.55),
    ("安徽省", "华东", 6113, 14.01), ("湖北省", "华中", 5830, 18.59), ("广西壮族自治区", "华南", 5037, 23.76),
    ("云南省", "西南", 4690, 39.41), ("江西省", "华东", 4517, 16.69), ("辽宁省", "东北", 4229, 14.80), ("福建省", "华东", 4187, 12.40),
    ("陕西省", "西北", 3954, 20.56),
]


def write_xlsx(out: Path) -> None:
    import xlsxwriter

    book = xlsxwriter.Workbook(out / "prefectures.xlsx")
    sheet = book.add_worksheet("都道府県")
    thousands = book.add_format({"num_format": "#,##0"})
    for c, name in enumerate(["都道府県", "地方", "人口", "面積 (km²)"]):
        sheet.write(0, c, name)
    for r, (name, _, region, pop, area) in enumerate(PREFECTURES, start=1):
        sheet.write(r, 0, name)
        sheet.write(r, 1, region)
        sheet.write_number(r, 2, pop, thousands)
        sheet.write_number(r, 3, area, thousands)
    book.close()

    book = xlsxwriter.Workbook(out / "sales_2024.xlsx")
    thousands = book.add_format({"num_format": "#,##0"})
    for region, table in SALES.items():
        sheet = book.add_worksheet(region)
        sheet.merge_range(0, 0, 1, 0, "製品")
        sheet.merge_range(0, 1, 0, 4, "2024年")
        for c, quarter in enumerate(["Q1", "Q2", "Q3", "Q4"], start=1):
            sheet.write(1, c, quarter)
        for r, (product, values) in enumerate(zip(PRODUCTS, table, strict=True), start=2):
            sheet.write(r, 0, product)
            for c, value in enumerate(values, start=1):
                sheet.write_number(r, c, value, thousands)
    book.close()


def write_pdf(out: Path) -> None:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    styles = getSampleStyleSheet()
    rows = [["City", "Country", "Hotel limit (JPY)", "Meal allowance (JPY)"]]
    rows += [[city, country, f"{hotel:,}", f"{meal:,}"] for city, country, hotel, meal in CITIES]
    table = Table(rows, repeatRows=1, colWidths=[110, 130, 110, 130], rowHeights=24)
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black), ("FONTSIZE", (0, 0), (-1, -1), 10)]))
    story = [Paragraph("Business travel limits", styles["Title"]),
             Paragraph("Table 1. Nightly hotel limit and daily meal allowance by destination city, in Japanese yen.", styles["Normal"]),
             Spacer(1, 200), table]
    SimpleDocTemplate(str(out / "travel_limits.pdf"), pagesize=A4).build(story)


def write_docx(out: Path) -> None:
    from docx import Document

    doc = Document()
    doc.add_heading("办公设备价格表", level=1)
    doc.add_paragraph("下表列出本季度办公设备的统一采购价格和当前库存。")
    table = doc.add_table(rows=1, cols=4)
    for cell, name in zip(table.rows[0].cells, ["产品", "类别", "价格（元）", "库存"], strict=True):
        cell.text = name
    for product, category, price, stock in PRICES:
        cells = table.add_row().cells
        for cell, value in zip(cells, [product, category, f"{price:,}", str(stock)], strict=True):
            cell.text = value
    doc.save(str(out / "price_list.docx"))


def write_csv(out: Path) -> None:
    lines = ["省份,地区,人口（万人）,面积（万平方公里）"]
    lines += [f"{name},{region},{pop},{area:.2f}" for name, region, pop, area in PROVINCES]
    (out / "provinces.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_prose(out: Path) -> None:
    (out / "handbook.md").write_text(
        "# Employee handbook\n\n## Annual leave\n\nFull-time employees receive 20 days of paid annual leave per year. "
        "Unused leave may be carried over for one year.\n\n## Expense claims\n\nExpense claims must be submitted within 30 days "
        "of the trip, with receipts attached. Taxi fares are reimbursed only when public transport is unavailable.\n",
        encoding="utf-8")
    (out / "手引き.md").write_text(
        "# 社員の手引き\n\n## 年次有給休暇\n\n正社員には年間20日の年次有給休暇が付与されます。未使用分は翌年に限り繰り越せます。\n\n"
        "## 経費精算\n\n出張の経費は出張後30日以内に領収書を添えて申請してください。\n", encoding="utf-8")
    (out / "手册.md").write_text(
        "# 员工手册\n\n## 年假\n\n全职员工每年享有20天带薪年假，未休年假可顺延一年。\n\n## 报销\n\n差旅费用须在出差结束后30天内凭发票报销。\n",
        encoding="utf-8")


def _q(lang: str, kind: str, op: str, question: str, expected: Any, source: str | None = None) -> dict[str, Any]:
    return {"lang": lang, "type": kind, "op": op, "question": question, "expected": expected, "source": source}


def questions() -> list[dict[str, Any]]:
    qs: list[dict[str, Any]] = []
    pref = {name: (en, region, pop, area) for name, en, region, pop, area in PREFECTURES}
    # -- lookups ---------------------------------------------------------------------------------------------
    for city in ("London", "Osaka", "Singapore", "Berlin", "Sydney"):
        hotel = next(h for c, _, h, _ in CITIES if c == city)
        qs.append(_q("en", "lookup", "lookup", f"What is the hotel limit for {city}?", f"{hotel:,}", "travel_limits.pdf"))
    for city in ("Paris", "Seoul"):
        meal = next(m for c, _, _, m in CITIES if c == city)
        qs.append(_q("en", "lookup", "lookup", f"What is the meal allowance in {city}?", f"{meal:,}", "travel_limits.pdf"))
    for name in ("大阪府", "北海道", "広島県", "宮城県"):
        qs.append(_q("ja", "lookup", "lookup", f"{name}の人口は？", f"{pref[name][2]:,}", "prefectures.xlsx"))
    for name in ("長野県", "沖縄県"):
        qs.append(_q("ja", "lookup", "lookup", f"{name}の面積はどれくらいですか？", f"{pref[name][3]:,}", "prefectures.xlsx"))
    qs.append(_q("ja", "lookup", "lookup", "関東シートのマウスのQ2売上は？", f"{SALES['関東'][4][1]:,}", "sales_2024.xlsx"))
    for product in ("笔记本电脑", "投影仪", "路由器"):
        price = next(p for n, _, p, _ in PRICES if n == product)
        qs.append(_q("zh", "lookup", "lookup", f"{product}的价格是多少？", f"{price:,}", "price_list.docx"))
    qs.append(_q("zh", "lookup", "lookup", "机械键盘的库存有多少？", "150", "price_list.docx"))
    for name in ("四川省", "浙江省", "辽宁省"):
        pop = next(p for n, _, p, _ in PROVINCES if n == name)
        qs.append(_q("zh", "lookup", "lookup", f"{name}的人口是多少？", str(pop), "provinces.csv"))

    # -- aggregates: travel limits (en) -------------------------------------------------------------------------
    hotel = {c: h for c, _, h, _ in CITIES}
    meal = {c: m for c, _, _, m in CITIES}
    country = {c: k for c, k, _, _ in CITIES}
    en = [
        ("count", "How many cities have a hotel limit above 20,000 yen?", sum(h > 20000 for h in hotel.values())),
        ("count", "How many cities have a meal allowance of at least 6,000 yen?", sum(m >= 6000 for m in meal.values())),
        ("count", "How many cities in Japan are in the travel limits table?", sum(k == "Japan" for k in country.values())),
        ("avg", "What is the average hotel limit across all cities?", statistics.mean(hotel.values())),
        ("avg", "What is the average meal allowance for cities in China?", statistics.mean(m for c, m in meal.items() if country[c] == "China")),
        ("sum", "What is the total hotel limit for cities in the United States?", sum(h for c, h in hotel.items() if country[c] == "United States")),
        ("max", "Which city has the highest hotel limit?", [max(hotel, key=hotel.__getitem__)]),
        ("min", "Which city has the lowest meal allowance?", [min(meal, key=meal.__getitem__)]),
        ("top", "What are the top 3 cities by hotel limit?", sorted(hotel, key=lambda c: -hotel[c])[:3]),
        ("bottom", "Which are the bottom 2 cities by hotel limit?", sorted(hotel, key=lambda c: hotel[c])[:2]),
        ("difference", "What is the difference in hotel limit between London and Tokyo?", hotel["London"] - hotel["Tokyo"]),
        ("max", "Which has the higher hotel limit, Paris or Berlin?", ["Paris" if hotel["Paris"] > hotel["Berlin"] else "Berlin"]),
        ("list", "Which cities have a hotel limit below 12,000 yen?", [c for c, h in hotel.items() if h < 12000]),
        ("group", "What is the average hotel limit by country?", None),
        ("max", "Which city in Australia has the highest meal allowance?",
         [max((c for c in meal if country[c] == "Australia"), key=meal.__getitem__)]),
    ]
    by_country: dict[str, list[int]] = {}
    for c, h in hotel.items():
        by_country.setdefault(country[c], []).append(h)
    for op, question, expected in en:
        if op == "group":
            expected = {k: statistics.mean(v) for k, v in by_country.items()}
        qs.append(_q("en", "aggregate", op, question, expected, "travel_limits.pdf"))
    # English over the Japanese prefecture and Chinese price tables (cross-language headers)
    qs.append(_q("en", "aggregate", "sum", "What is the total population of the prefectures in 関東?",
                 sum(p[2] for p in pref.values() if p[1] == "関東"), "prefectures.xlsx"))
    qs.append(_q("en", "aggregate", "count", "How many products have a price below 1,000 yuan?", sum(p < 1000 for _, _, p, _ in PRICES),
                 "price_list.docx"))

    # -- aggregates: prefectures and sales (ja) ------------------------------------------------------------------
    kansai = SALES["関西"]
    ja = [
        ("count", "人口が500万人以上の都道府県はいくつ？", sum(p[2] >= 5_000_000 for p in pref.values()), "prefectures.xlsx"),
        ("count", "面積が5,000 km²未満の都道府県は何件ありますか？", sum(p[3] < 5000 for p in pref.values()), "prefectures.xlsx"),
        ("count", "九州地方の都道府県はいくつ？", sum(p[1] == "九州" for p in pref.values()), "prefectures.xlsx"),
        ("sum", "関東地方の人口の合計は？", sum(p[2] for p in pref.values() if p[1] == "関東"), "prefectures.xlsx"),
        ("avg", "中部地方の平均面積は？", statistics.mean(p[3] for p in pref.values() if p[1] == "中部"), "prefectures.xlsx"),
        ("max", "最も面積が大きい都道府県は？", [max(pref, key=lambda n: pref[n][3])], "prefectures.xlsx"),
        ("min", "一番人口が少ない都道府県は？", [min(pref, key=lambda n: pref[n][2])], "prefectures.xlsx"),
        ("top", "人口の上位3都道府県は？", sorted(pref, key=lambda n: -pref[n][2])[:3], "prefectures.xlsx"),
        ("difference", "東京都と大阪府の人口の差は？", pref["東京都"][2] - pref["大阪府"][2], "prefectures.xlsx"),
        ("max", "近畿地方で人口が最も多いのは？", [max((n for n in pref if pref[n][1] == "近畿"), key=lambda n: pref[n][2])], "prefectures.xlsx"),
        ("group", "地方別の人口の合計は？", None, "prefectures.xlsx"),
        ("sum", "関西シートのQ3売上の合計は？", sum(row[2] for row in kansai), "sales_2024.xlsx"),
        ("sum", "関東シートのQ1売上の合計はいくらですか？", sum(row[0] for row in SALES["関東"]), "sales_2024.xlsx"),
        ("avg", "九州シートのQ4売上の平均は？", statistics.mean(row[3] for row in SALES["九州"]), "sales_2024.xlsx"),
        ("max", "関西シートでQ2売上が最も高い製品は？", [PRODUCTS[max(range(6), key=lambda i: kansai[i][1])]], "sales_2024.xlsx"),
        ("growth", "関西シートでQ1からQ4にかけて売上が最も伸びた製品は？",
         [PRODUCTS[max(range(6), key=lambda i: kansai[i][3] - kansai[i][0])]], "sales_2024.xlsx"),
        ("count", "関東シートでQ4売上が100万円を超える製品はいくつ？", sum(row[3] > 1_000_000 for row in SALES["関東"]), "sales_2024.xlsx"),
        ("top", "九州シートのQ3売上の上位2製品は？", [PRODUCTS[i] for i in sorted(range(6), key=lambda i: -SALES["九州"][i][2])[:2]],
         "sales_2024.xlsx"),
    ]
    by_region: dict[str, int] = {}
    for p in pref.values():
        by_region[p[1]] = by_region.get(p[1], 0) + p[2]
    for op, question, expected, source in ja:
        if op == "group":
            expected = by_region
        qs.append(_q("ja", "aggregate", op, question, expected, source))
    qs.append(_q("en", "aggregate", "max", "Which city has the highest meal allowance?", [max(meal, key=meal.__getitem__)], "travel_limits.pdf"))
    qs.append(_q("ja", "aggregate", "count", "ホテル上限が30,000円を超える都市はいくつ？", sum(h > 30000 for h in hotel.values()), "travel_limits.pdf"))

    # -- aggregates: prices and provinces (zh) -------------------------------------------------------------------
    price = {n: p for n, _, p, _ in PRICES}
    stock = {n: s for n, _, _, s in PRICES}
    category = {n: c for n, c, _, _ in PRICES}
    prov = {n: (r, p, a) for n, r, p, a in PROVINCES}
    zh = [
        ("count", "价格超过1,000元的产品有几个？", sum(p > 1000 for p in price.values()), "price_list.docx"),
        ("sum", "外设类产品的库存总数是多少？", sum(stock[n] for n in stock if category[n] == "外设"), "price_list.docx"),
        ("avg", "所有产品的平均价格是多少？", statistics.mean(price.values()), "price_list.docx"),
        ("max", "哪个产品价格最高？", [max(price, key=price.__getitem__)], "price_list.docx"),
        ("min", "哪个产品的库存最少？", [min(stock, key=stock.__getitem__)], "price_list.docx"),
        ("top", "价格前三名的产品是哪些？", sorted(price, key=lambda n: -price[n])[:3], "price_list.docx"),
        ("difference", "笔记本电脑和平板电脑的价格相差多少？", price["笔记本电脑"] - price["平板电脑"], "price_list.docx"),
        ("group", "按类别统计库存的总和", None, "price_list.docx"),
        ("count", "人口超过8000万的省份有几个？", sum(p[1] * 10000 > 80_000_000 for p in prov.values()), "provinces.csv"),
        ("sum", "华东地区的人口总和是多少？", sum(p[1] for p in prov.values() if p[0] == "华东") * 10000, "provinces.csv"),
        ("avg", "华中地区省份的平均人口是多少？", statistics.mean(p[1] for p in prov.values() if p[0] == "华中") * 10000, "provinces.csv"),
        ("max", "哪个省份的面积最大？", [max(prov, key=lambda n: prov[n][2])], "provinces.csv"),
        ("min", "西南地区哪个省的人口最少？", [min((n for n in prov if prov[n][0] == "西南"), key=lambda n: prov[n][1])], "provinces.csv"),
        ("top", "人口排名前5的省份是哪些？", sorted(prov, key=lambda n: -prov[n][1])[:5], "provinces.csv"),
        ("list", "面积小于12万平方公里的省份有哪些？", [n for n in prov if prov[n][2] * 10000 < 120000], "provinces.csv"),
        ("growth", "关西表中从Q1到Q4哪个产品增长最多？", [PRODUCTS[max(range(6), key=lambda i: kansai[i][3] - kansai[i][0])]], "sales_2024.xlsx"),
        ("max", "九州表里Q1销售额最高的产品是哪个？", [PRODUCTS[max(range(6), key=lambda i: SALES["九州"][i][0])]], "sales_2024.xlsx"),
        ("count", "酒店上限超过25,000日元的城市有几个？", sum(h > 25000 for h in hotel.values()), "travel_limits.pdf"),
    ]
    by_category: dict[str, int] = {}
    for n, s in stock.items():
        by_category[category[n]] = by_category.get(category[n], 0) + s
    for op, question, expected, source in zh:
        if op == "group":
            expected = by_category
        qs.append(_q("zh", "aggregate", op, question, expected, source))

    # -- absent: no table (and no text) answers them ------------------------------------------------------------
    absent = [
        ("en", "How many employees joined the company in 2023?"), ("en", "What is the average salary of engineers?"),
        ("en", "Which airline has the most flights to London?"), ("en", "What is the total rainfall in Osaka in June?"),
        ("en", "How many meeting rooms have more than 10 seats?"), ("en", "What is the hotel limit for Cairo?"),
        ("en", "Which department has the highest overtime hours?"),
        ("ja", "社員の平均年齢は？"), ("ja", "2023年に入社した社員は何人？"), ("ja", "最も売上が高い営業担当者は誰？"),
        ("ja", "会議室の予約件数の合計は？"), ("ja", "降水量が最も多い月は？"), ("ja", "佐賀県の人口は？"),
        ("ja", "残業時間が20時間を超える部署はいくつ？"),
        ("zh", "员工的平均工资是多少？"), ("zh", "哪个部门的加班时间最长？"), ("zh", "2023年入职的员工有几个？"),
        ("zh", "会议室的座位总数是多少？"), ("zh", "降雨量最多的月份是哪个？"), ("zh", "西藏自治区的人口是多少？"),
        ("zh", "客户投诉超过10次的门店有几个？"),
    ]
    qs += [_q(lang, "absent", "absent", q, None) for lang, q in absent]
    # -- text questions: the answer is prose, not a table (the table route must not take them over) -------------
    qs += [
        _q("en", "text", "lookup", "How many days of paid annual leave do full-time employees receive?", "20", "handbook.md"),
        _q("ja", "text", "lookup", "経費は出張後何日以内に申請しますか？", "30", "手引き.md"),
        _q("zh", "text", "lookup", "全职员工每年有多少天带薪年假？", "20", "手册.md"),
    ]
    return qs


def heldout() -> list[dict[str, Any]]:
    """Questions phrased apart from the rules' development: written once, measured, not tuned against."""
    pref = {name: (en, region, pop, area) for name, en, region, pop, area in PREFECTURES}
    hotel = {c: h for c, _, h, _ in CITIES}
    meal = {c: m for c, _, _, m in CITIES}
    country = {c: k for c, k, _, _ in CITIES}
    price = {n: p for n, _, p, _ in PRICES}
    stock = {n: s for n, _, _, s in PRICES}
    prov = {n: (r, p, a) for n, r, p, a in PROVINCES}
    kanto = SALES["関東"]
    qs = [
        _q("en", "lookup", "lookup", "How much is the nightly hotel limit in Chicago?", f"{hotel['Chicago']:,}", "travel_limits.pdf"),
        _q("en", "lookup", "lookup", "Tell me the meal allowance for Mumbai.", f"{meal['Mumbai']:,}", "travel_limits.pdf"),
        _q("en", "aggregate", "count", "Number of cities whose meal allowance is below 4,000 yen?", sum(m < 4000 for m in meal.values()),
           "travel_limits.pdf"),
        _q("en", "aggregate", "sum", "Sum of the hotel limits of the cities in Canada?", sum(h for c, h in hotel.items() if country[c] == "Canada"),
           "travel_limits.pdf"),
        _q("en", "aggregate", "avg", "What's the mean meal allowance in Germany?",
           statistics.mean(m for c, m in meal.items() if country[c] == "Germany"), "travel_limits.pdf"),
        _q("en", "aggregate", "min", "Which city has the smallest hotel limit?", [min(hotel, key=hotel.__getitem__)], "travel_limits.pdf"),
        _q("en", "aggregate", "top", "List the top 5 cities by meal allowance.", sorted(meal, key=lambda c: -meal[c])[:5], "travel_limits.pdf"),
        _q("en", "aggregate", "max", "Which product has the largest stock?", [max(stock, key=stock.__getitem__)], "price_list.docx"),
        _q("en", "aggregate", "count", "How many prefectures have an area over 8,000 km²?", sum(p[3] > 8000 for p in pref.values()),
           "prefectures.xlsx"),
        _q("en", "aggregate", "difference", "How much higher is the hotel limit in New York than in Seattle?",
           hotel["New York"] - hotel["Seattle"], "travel_limits.pdf"),
        _q("en", "absent", "absent", "How many trains leave Tokyo station per hour?", None),
        _q("en", "absent", "absent", "What is the average age of the board members?", None),
        _q("ja", "lookup", "lookup", "兵庫県の人口を教えてください。", f"{pref['兵庫県'][2]:,}", "prefectures.xlsx"),
        _q("ja", "lookup", "lookup", "九州シートのモニターのQ3売上はいくらですか？", f"{SALES['九州'][2][2]:,}", "sales_2024.xlsx"),
        _q("ja", "aggregate", "count", "人口が300万人未満の都道府県は何件？", sum(p[2] < 3_000_000 for p in pref.values()), "prefectures.xlsx"),
        _q("ja", "aggregate", "sum", "近畿地方の面積の合計を教えて", sum(p[3] for p in pref.values() if p[1] == "近畿"), "prefectures.xlsx"),
        _q("ja", "aggregate", "avg", "関東地方の都道府県の平均人口はいくつですか？",
           statistics.mean(p[2] for p in pref.values() if p[1] == "関東"), "prefectures.xlsx"),
        _q("ja", "aggregate", "min", "面積が最も小さい都道府県はどこ？", [min(pref, key=lambda n: pref[n][3])], "prefectures.xlsx"),
        _q("ja", "aggregate", "top", "関東シートでQ4売上の上位3製品を教えて", [PRODUCTS[i] for i in sorted(range(6), key=lambda i: -kanto[i][3])[:3]],
           "sales_2024.xlsx"),
        _q("ja", "aggregate", "sum", "九州シートのQ2売上の合計はいくら？", sum(row[1] for row in SALES["九州"]), "sales_2024.xlsx"),
        _q("ja", "aggregate", "difference", "北海道と長野県の面積の差は？", pref["北海道"][3] - pref["長野県"][3], "prefectures.xlsx"),
        _q("ja", "aggregate", "max", "中部地方で面積が一番大きいのはどこ？",
           [max((n for n in pref if pref[n][1] == "中部"), key=lambda n: pref[n][3])], "prefectures.xlsx"),
        _q("ja", "absent", "absent", "平均気温が最も高い都道府県は？", None),
        _q("ja", "absent", "absent", "新幹線の駅が5つ以上ある県はいくつ？", None),
        _q("zh", "lookup", "lookup", "交换机的价格是多少元？", f"{price['交换机']:,}", "price_list.docx"),
        _q("zh", "lookup", "lookup", "云南省的面积是多少？", f"{prov['云南省'][2]:.2f}", "provinces.csv"),
        _q("zh", "aggregate", "count", "库存少于30的产品有几个？", sum(s < 30 for s in stock.values()), "price_list.docx"),
        _q("zh", "aggregate", "sum", "网络类产品的价格总和是多少？", sum(price[n] for n in price if dict((a, b) for a, b, _, _ in PRICES)[n] == "网络"),
           "price_list.docx"),
        _q("zh", "aggregate", "avg", "华东地区的平均面积是多少？", statistics.mean(p[2] for p in prov.values() if p[0] == "华东") * 10000,
           "provinces.csv"),
        _q("zh", "aggregate", "max", "哪个省份人口最多？", [max(prov, key=lambda n: prov[n][1])], "provinces.csv"),
        _q("zh", "aggregate", "bottom", "人口倒数3的省份是哪些？", sorted(prov, key=lambda n: prov[n][1])[:3], "provinces.csv"),
        _q("zh", "aggregate", "count", "面积超过20万平方公里的省份有几个？", sum(p[2] > 20 for p in prov.values()), "provinces.csv"),
        _q("zh", "aggregate", "difference", "广东省和山东省的人口相差多少？", (prov["广东省"][1] - prov["山东省"][1]) * 10000, "provinces.csv"),
        _q("zh", "aggregate", "min", "哪个产品最便宜？", [min(price, key=price.__getitem__)], "price_list.docx"),
        _q("zh", "absent", "absent", "哪个城市的地铁线路最多？", None),
        _q("zh", "absent", "absent", "销售人员的平均提成是多少？", None),
    ]
    return qs


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_xlsx(out)
    write_pdf(out)
    write_docx(out)
    write_csv(out)
    write_prose(out)
    for name, items in (("questions.jsonl", questions()), ("heldout.jsonl", heldout())):
        with (HERE / name).open("w", encoding="utf-8") as f:
            for q in items:
                f.write(json.dumps(q, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "corpus")
