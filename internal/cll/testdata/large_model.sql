-- Synthetic: generated for Ripple's parser benchmark (issue #26), in the shape of a large
-- compiled dbt mart (Postgres dialect). No third-party content.
with
src_0 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_0"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_1 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_1"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_2 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_2"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_3 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_3"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_4 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_4"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_5 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_5"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_6 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_6"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_7 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_7"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_8 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_8"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_9 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_9"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_10 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_10"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_11 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_11"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_12 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_12"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_13 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_13"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_14 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_14"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_15 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_15"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_16 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_16"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_17 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_17"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_18 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_18"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_19 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_19"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_20 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_20"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_21 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_21"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_22 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_22"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
src_23 as (
    select
        id,
        customer_id,
        cast(updated_at as timestamp) as updated_at,
        created_at::date as created_date,
        coalesce(col_0, 0)::numeric(18, 2) as col_0,
        coalesce(col_1, 0)::numeric(18, 2) as col_1,
        coalesce(col_2, 0)::numeric(18, 2) as col_2,
        coalesce(col_3, 0)::numeric(18, 2) as col_3,
        coalesce(col_4, 0)::numeric(18, 2) as col_4,
        coalesce(col_5, 0)::numeric(18, 2) as col_5,
        coalesce(col_6, 0)::numeric(18, 2) as col_6,
        coalesce(col_7, 0)::numeric(18, 2) as col_7,
        case when status in ('open', 'pending') then 'active'
             when status = 'closed' and closed_at::date < '2022-07-20' then 'legacy'
             else 'other' end as status_group,
        row_number() over (partition by customer_id order by updated_at desc) as rn
    from "analytics"."staging"."stg_source_23"
    where created_at::date < '2024-01-01' and created_at >= '2020-01-01'
),
joined_0 as (
    select
        src_0.id,
        src_0.customer_id,
        src_0.status_group,
        src_0.col_0 + src_1.col_0 as amount_0,
        src_0.col_1 * src_1.col_1 as amount_1,
        greatest(src_0.updated_at, src_1.updated_at) as updated_at,
        sum(src_0.col_2) over (partition by src_0.customer_id order by src_0.updated_at rows between unbounded preceding and current row) as running_total
    from src_0
    left join src_1 on src_0.id = src_1.id and src_1.rn = 1
    where src_0.rn = 1
),
joined_2 as (
    select
        src_2.id,
        src_2.customer_id,
        src_2.status_group,
        src_2.col_0 + src_3.col_0 as amount_0,
        src_2.col_1 * src_3.col_1 as amount_1,
        greatest(src_2.updated_at, src_3.updated_at) as updated_at,
        sum(src_2.col_2) over (partition by src_2.customer_id order by src_2.updated_at rows between unbounded preceding and current row) as running_total
    from src_2
    left join src_3 on src_2.id = src_3.id and src_3.rn = 1
    where src_2.rn = 1
),
joined_4 as (
    select
        src_4.id,
        src_4.customer_id,
        src_4.status_group,
        src_4.col_0 + src_5.col_0 as amount_0,
        src_4.col_1 * src_5.col_1 as amount_1,
        greatest(src_4.updated_at, src_5.updated_at) as updated_at,
        sum(src_4.col_2) over (partition by src_4.customer_id order by src_4.updated_at rows between unbounded preceding and current row) as running_total
    from src_4
    left join src_5 on src_4.id = src_5.id and src_5.rn = 1
    where src_4.rn = 1
),
joined_6 as (
    select
        src_6.id,
        src_6.customer_id,
        src_6.status_group,
        src_6.col_0 + src_7.col_0 as amount_0,
        src_6.col_1 * src_7.col_1 as amount_1,
        greatest(src_6.updated_at, src_7.updated_at) as updated_at,
        sum(src_6.col_2) over (partition by src_6.customer_id order by src_6.updated_at rows between unbounded preceding and current row) as running_total
    from src_6
    left join src_7 on src_6.id = src_7.id and src_7.rn = 1
    where src_6.rn = 1
),
joined_8 as (
    select
        src_8.id,
        src_8.customer_id,
        src_8.status_group,
        src_8.col_0 + src_9.col_0 as amount_0,
        src_8.col_1 * src_9.col_1 as amount_1,
        greatest(src_8.updated_at, src_9.updated_at) as updated_at,
        sum(src_8.col_2) over (partition by src_8.customer_id order by src_8.updated_at rows between unbounded preceding and current row) as running_total
    from src_8
    left join src_9 on src_8.id = src_9.id and src_9.rn = 1
    where src_8.rn = 1
),
joined_10 as (
    select
        src_10.id,
        src_10.customer_id,
        src_10.status_group,
        src_10.col_0 + src_11.col_0 as amount_0,
        src_10.col_1 * src_11.col_1 as amount_1,
        greatest(src_10.updated_at, src_11.updated_at) as updated_at,
        sum(src_10.col_2) over (partition by src_10.customer_id order by src_10.updated_at rows between unbounded preceding and current row) as running_total
    from src_10
    left join src_11 on src_10.id = src_11.id and src_11.rn = 1
    where src_10.rn = 1
),
joined_12 as (
    select
        src_12.id,
        src_12.customer_id,
        src_12.status_group,
        src_12.col_0 + src_13.col_0 as amount_0,
        src_12.col_1 * src_13.col_1 as amount_1,
        greatest(src_12.updated_at, src_13.updated_at) as updated_at,
        sum(src_12.col_2) over (partition by src_12.customer_id order by src_12.updated_at rows between unbounded preceding and current row) as running_total
    from src_12
    left join src_13 on src_12.id = src_13.id and src_13.rn = 1
    where src_12.rn = 1
),
joined_14 as (
    select
        src_14.id,
        src_14.customer_id,
        src_14.status_group,
        src_14.col_0 + src_15.col_0 as amount_0,
        src_14.col_1 * src_15.col_1 as amount_1,
        greatest(src_14.updated_at, src_15.updated_at) as updated_at,
        sum(src_14.col_2) over (partition by src_14.customer_id order by src_14.updated_at rows between unbounded preceding and current row) as running_total
    from src_14
    left join src_15 on src_14.id = src_15.id and src_15.rn = 1
    where src_14.rn = 1
),
joined_16 as (
    select
        src_16.id,
        src_16.customer_id,
        src_16.status_group,
        src_16.col_0 + src_17.col_0 as amount_0,
        src_16.col_1 * src_17.col_1 as amount_1,
        greatest(src_16.updated_at, src_17.updated_at) as updated_at,
        sum(src_16.col_2) over (partition by src_16.customer_id order by src_16.updated_at rows between unbounded preceding and current row) as running_total
    from src_16
    left join src_17 on src_16.id = src_17.id and src_17.rn = 1
    where src_16.rn = 1
),
joined_18 as (
    select
        src_18.id,
        src_18.customer_id,
        src_18.status_group,
        src_18.col_0 + src_19.col_0 as amount_0,
        src_18.col_1 * src_19.col_1 as amount_1,
        greatest(src_18.updated_at, src_19.updated_at) as updated_at,
        sum(src_18.col_2) over (partition by src_18.customer_id order by src_18.updated_at rows between unbounded preceding and current row) as running_total
    from src_18
    left join src_19 on src_18.id = src_19.id and src_19.rn = 1
    where src_18.rn = 1
),
joined_20 as (
    select
        src_20.id,
        src_20.customer_id,
        src_20.status_group,
        src_20.col_0 + src_21.col_0 as amount_0,
        src_20.col_1 * src_21.col_1 as amount_1,
        greatest(src_20.updated_at, src_21.updated_at) as updated_at,
        sum(src_20.col_2) over (partition by src_20.customer_id order by src_20.updated_at rows between unbounded preceding and current row) as running_total
    from src_20
    left join src_21 on src_20.id = src_21.id and src_21.rn = 1
    where src_20.rn = 1
),
joined_22 as (
    select
        src_22.id,
        src_22.customer_id,
        src_22.status_group,
        src_22.col_0 + src_23.col_0 as amount_0,
        src_22.col_1 * src_23.col_1 as amount_1,
        greatest(src_22.updated_at, src_23.updated_at) as updated_at,
        sum(src_22.col_2) over (partition by src_22.customer_id order by src_22.updated_at rows between unbounded preceding and current row) as running_total
    from src_22
    left join src_23 on src_22.id = src_23.id and src_23.rn = 1
    where src_22.rn = 1
),
unioned as (
    select id, customer_id, status_group, amount_0, amount_1, updated_at, running_total, '0' as part from joined_0
    union all
    select id, customer_id, status_group, amount_0, amount_1, updated_at, running_total, '2' as part from joined_2
    union all
    select id, customer_id, status_group, amount_0, amount_1, updated_at, running_total, '4' as part from joined_4
    union all
    select id, customer_id, status_group, amount_0, amount_1, updated_at, running_total, '6' as part from joined_6
    union all
    select id, customer_id, status_group, amount_0, amount_1, updated_at, running_total, '8' as part from joined_8
    union all
    select id, customer_id, status_group, amount_0, amount_1, updated_at, running_total, '10' as part from joined_10
    union all
    select id, customer_id, status_group, amount_0, amount_1, updated_at, running_total, '12' as part from joined_12
    union all
    select id, customer_id, status_group, amount_0, amount_1, updated_at, running_total, '14' as part from joined_14
    union all
    select id, customer_id, status_group, amount_0, amount_1, updated_at, running_total, '16' as part from joined_16
    union all
    select id, customer_id, status_group, amount_0, amount_1, updated_at, running_total, '18' as part from joined_18
    union all
    select id, customer_id, status_group, amount_0, amount_1, updated_at, running_total, '20' as part from joined_20
    union all
    select id, customer_id, status_group, amount_0, amount_1, updated_at, running_total, '22' as part from joined_22
),
final as (
    select
        customer_id,
        status_group,
        count(*) as n,
        sum(amount_0) as amount_0,
        avg(amount_1) as amount_1,
        max(updated_at) as last_update,
        sum(running_total) filter (where part <> '0') as running_total
    from unioned
    group by grouping sets ((customer_id, status_group), (customer_id), ())
)
select * from final
order by customer_id nulls last
